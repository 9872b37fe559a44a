/**
 * Destination numbers (`to`, `msisdn`): digits only, optionally with one leading `+`, 5 to 15
 * digits (E.164 allows at most 15). Stored and answered without the `+`, as the provider does.
 */

const MSISDN = /^\+?(\d{5,15})$/;

export const MSISDN_HINT =
  "5 to 15 digits in international format, optionally with a leading +, e.g. 41793026727";

/** The normalized number (digits only), or null when the text is not a phone number. */
export function normalizeMsisdn(text: string): string | null {
  const match = MSISDN.exec(text);
  return match ? (match[1] as string) : null;
}
