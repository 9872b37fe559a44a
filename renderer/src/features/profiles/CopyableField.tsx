import { Button, TextInput } from "@mantine/core";
import { useRef, useState } from "react";

/**
 * Writes text to the clipboard; false when the page may not (no Clipboard API, or refused), in
 * which case the caller selects the text so that the user can copy it with the keyboard.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** A read-only field with a Copy button, for values to paste into the configuration of an app. */
export function CopyableField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<"idle" | "copied" | "selected">("idle");
  const copy = async () => {
    if (await copyText(value)) {
      setState("copied");
    } else {
      input.current?.focus();
      input.current?.select();
      setState("selected");
    }
    setTimeout(() => setState("idle"), 2000);
  };
  return (
    <TextInput
      label={label}
      value={value}
      readOnly
      ref={input}
      data-testid={testId}
      styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
      onFocus={(event) => event.currentTarget.select()}
      description={state === "selected" ? "Selected: press Ctrl+C (⌘C) to copy" : undefined}
      rightSectionWidth={90}
      rightSection={
        <Button
          size="compact-xs"
          variant={state === "copied" ? "filled" : "default"}
          onClick={copy}
          aria-label={`Copy ${label}`}
        >
          {state === "copied" ? "Copied" : "Copy"}
        </Button>
      }
    />
  );
}
