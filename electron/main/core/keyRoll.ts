import { type ApiKeyDto, type CreateApiKeyRequest, NAME_MAX_LENGTH } from "../../../shared/apiKeys.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../shared/datetime.ts";

/**
 * Rolling a key (rotation with overlap), as plain data: the successor's create request and the
 * old key's new end. Done with the spec's create and update only, so the same plan works against
 * the embedded service and any remote.
 */

/** What an earlier roll appended; a key rolled again gets a fresh suffix instead of a second one. */
const ROLLED_SUFFIX = / \(rolled \d{4}-\d{2}-\d{2}\)$/;

/** `billing` → `billing (rolled 2026-11-25)`, the base cut so that the name stays within the limit. */
export function rolledName(name: string, now: number): string {
  const suffix = ` (rolled ${new Date(now).toISOString().slice(0, 10)})`;
  const base = [...name.trim().replace(ROLLED_SUFFIX, "")];
  const room = NAME_MAX_LENGTH - suffix.length;
  return `${base.slice(0, room).join("").trimEnd()}${suffix}`;
}

/** The successor: the old key's name (suffixed), permissions, allowedIPs and validity window. */
export function successorRequest(old: ApiKeyDto, now: number): CreateApiKeyRequest {
  return {
    name: rolledName(old.name, now),
    permissions: old.permissions,
    ...(old.allowedIPs && old.allowedIPs.length > 0 && { allowedIPs: old.allowedIPs }),
    ...(old.validFrom !== undefined && { validFrom: old.validFrom }),
    ...(old.validTo !== undefined && { validTo: old.validTo }),
  };
}

/**
 * When the old key stops authorizing: now + grace, never later than the end it already has (an
 * earlier end is kept, and nothing needs changing). A key not valid yet ends just after its start
 * (the service refuses an end at or before the start), so it never authorizes anything.
 */
export function retirement(
  old: Pick<ApiKeyDto, "validFrom" | "validTo">,
  retireAt: number,
): { validTo: string } | { unchanged: string } {
  const end = old.validTo === undefined ? null : parseApiDateTime(old.validTo);
  if (end !== null && end <= retireAt) return { unchanged: old.validTo as string };
  const start = old.validFrom === undefined ? null : parseApiDateTime(old.validFrom);
  const at = start !== null && retireAt <= start ? start + 1 : retireAt;
  return { validTo: formatApiDateTime(at) };
}
