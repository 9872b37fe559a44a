import type { ApiKeyDto, CreateApiKeyRequest } from "../../../shared/apiKeys.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../shared/datetime.ts";
import { baseName, rolledName } from "../../../shared/keyRollNames.ts";

/**
 * Rolling a key (rotation with overlap), as plain data: the successor's create request and the
 * old key's update (its marked name and new end). Done with the spec's create and update only, so
 * the same plan works against the embedded service and any remote.
 */

/**
 * The successor: the old key's name (without an earlier roll's mark: scripts find keys by name),
 * permissions, allowedIPs and start, with the end the admin chose (null: none).
 */
export function successorRequest(old: ApiKeyDto, validTo: string | null): CreateApiKeyRequest {
  return {
    name: baseName(old.name),
    permissions: old.permissions,
    ...(old.allowedIPs && old.allowedIPs.length > 0 && { allowedIPs: old.allowedIPs }),
    ...(old.validFrom !== undefined && { validFrom: old.validFrom }),
    ...(validTo !== null && { validTo }),
  };
}

/** Why the successor's end is refused (it would never authorize anything), or null. */
export function successorEndProblem(validTo: string | null, now: number): string | null {
  if (validTo === null) return null;
  const end = parseApiDateTime(validTo) as number;
  return end <= now
    ? `the new key's validTo ${validTo} is not in the future: choose a later end, or none`
    : null;
}

export interface RetirementPlan {
  /** The old key's new name: marked with the day of the roll. */
  name: string;
  /** The old key's end after the update. */
  validTo: string;
  /** Whether validTo is a new, earlier end (else the key's own end is kept). */
  shortened: boolean;
}

/**
 * The old key's update: its name marked as rolled on `rolledOn`, and its end at retireAt (now +
 * grace), never later than the end it already has (an earlier end is kept). A key not valid yet
 * ends just after its start (the service refuses an end at or before the start), so it never
 * authorizes anything.
 */
export function retirement(
  old: Pick<ApiKeyDto, "name" | "validFrom" | "validTo">,
  retireAt: number,
  rolledOn: number,
): RetirementPlan {
  const name = rolledName(old.name, rolledOn);
  const end = old.validTo === undefined ? null : parseApiDateTime(old.validTo);
  if (end !== null && end <= retireAt) return { name, validTo: old.validTo as string, shortened: false };
  const start = old.validFrom === undefined ? null : parseApiDateTime(old.validFrom);
  const at = start !== null && retireAt <= start ? start + 1 : retireAt;
  return { name, validTo: formatApiDateTime(at), shortened: true };
}
