import { useSyncExternalStore } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";

/**
 * Keys this app rolled, with the end the roll gave them, so that their rows say "retiring in
 * 23 h" rather than just "expires": kept in localStorage (no secret: key ids and times) for as
 * long as the key still has that end. The service knows nothing of it: on another machine the
 * same key simply "expires in 23 h".
 */

const STORAGE_KEY = "keydesk.retiringKeys";
const listeners = new Set<() => void>();
let cache: Record<string, string> | null = null;

function read(): Record<string, string> {
  if (cache === null) {
    try {
      cache = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}") as Record<string, string>;
    } catch {
      cache = {};
    }
  }
  return cache;
}

/** Remembers that `keyId` was rolled and now ends at `validTo`. */
export function rememberRetiring(keyId: string, validTo: string): void {
  const now = Date.now();
  // Entries whose end has passed are dropped as new ones come.
  const kept = Object.entries(read()).filter(
    ([, end]) => Date.parse(end.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")) > now,
  );
  cache = { ...Object.fromEntries(kept), [keyId]: validTo };
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(cache));
  } catch {
    // Storage full or refused: the label lasts for this session only.
  }
  for (const listener of listeners) listener();
}

/** Whether the key is one this app rolled and still has the end the roll gave it. */
export function isRetiring(
  retiring: Record<string, string>,
  key: Pick<ApiKeyView, "key" | "validTo">,
): boolean {
  return key.validTo !== undefined && retiring[key.key] === key.validTo;
}

/** The remembered keys, re-rendering when one is added. */
export function useRetiringKeys(): Record<string, string> {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, read);
}
