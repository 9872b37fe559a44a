/**
 * The text of a PIN message: the template's messageText with `{{pin}}` replaced by the PIN and
 * every other `{{name}}` by the send request's placeholder of that name. Placeholders without a
 * value stay as written, so the captured text shows what a real phone would have shown. One pass:
 * a placeholder value that itself looks like `{{pin}}` is not expanded.
 */

const PLACEHOLDER = /\{\{([^{}]+)\}\}/g;

export function renderMessage(
  messageText: string,
  pin: string,
  placeholders: Record<string, string>,
): string {
  return messageText.replace(PLACEHOLDER, (whole, name: string) => {
    if (name === "pin") return pin;
    return Object.hasOwn(placeholders, name) ? (placeholders[name] as string) : whole;
  });
}
