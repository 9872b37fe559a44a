import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";

/**
 * What a key's row says about it: disabled wins, then the validity window decides between
 * "not yet valid", "expired" and "enabled". Pure, so that it can be tested without a browser.
 */
export type KeyState = "enabled" | "disabled" | "not-yet-valid" | "expired";

export const KEY_STATE_LABELS: Record<KeyState, string> = {
  enabled: "Enabled",
  disabled: "Disabled",
  "not-yet-valid": "Not yet valid",
  expired: "Expired",
};

export function keyState(key: Pick<ApiKeyView, "enabled" | "validFrom" | "validTo">, now: number): KeyState {
  if (!key.enabled) return "disabled";
  const from = key.validFrom ? parseApiDateTime(key.validFrom) : null;
  const to = key.validTo ? parseApiDateTime(key.validTo) : null;
  if (from !== null && now < from) return "not-yet-valid";
  if (to !== null && now > to) return "expired";
  return "enabled";
}

/** A short summary of a key's IP restriction, e.g. "Any IP", "10.0.0.0/8", "10.0.0.1 +2 more". */
export function ipSummary(allowedIPs: readonly string[] | undefined): string {
  if (!allowedIPs || allowedIPs.length === 0) return "Any IP";
  const [first] = allowedIPs;
  return allowedIPs.length === 1 ? (first as string) : `${first} +${allowedIPs.length - 1} more`;
}

export interface KeyFilters {
  enabled: "all" | "enabled" | "disabled";
  permission: "any" | "ALL" | "TFA";
  name: string;
}

/** The keys the filters let through (name: case-insensitive substring). */
export function filterKeys(keys: readonly ApiKeyView[], filters: KeyFilters): ApiKeyView[] {
  const needle = filters.name.trim().toLowerCase();
  return keys.filter(
    (key) =>
      (filters.enabled === "all" || key.enabled === (filters.enabled === "enabled")) &&
      (filters.permission === "any" || key.permissions.includes(filters.permission)) &&
      (needle === "" || key.name.toLowerCase().includes(needle)),
  );
}
