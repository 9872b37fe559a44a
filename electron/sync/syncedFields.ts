import type { ApiKeyDto, CreateApiKeyRequest, UpdateApiKeyRequest } from "../../shared/apiKeys.ts";
import { formatApiDateTime, parseApiDateTime } from "../../shared/datetime.ts";
import { normalizeIpEntry } from "../../shared/ip.ts";
import { SYNCED_FIELDS, type SyncedField } from "../../shared/sync.ts";
import { normalizeAllowedIPs, normalizePermissions } from "../service/domain/apiKeyRecords.ts";
import type { Fields } from "../service/domain/syncRecords.ts";

export { syncedFieldsOf } from "../service/domain/syncRecords.ts";

// Kept with the sync tables (nothing in the service imports this folder); used here too.
export type { Fields };

/**
 * The fields a sync compares, in the service's stored form (times in epoch ms, IPs normalized),
 * so that "changed" means changed in meaning, not in spelling: `10.0.0.1/32` and `10.0.0.1`, or
 * `+0100` and `+0000` forms of one instant, are equal.
 */

function sameList(a: readonly string[] | null, b: readonly string[] | null, ordered: boolean): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  if (ordered) return a.every((value, index) => value === b[index]);
  const set = new Set(a);
  return b.every((value) => set.has(value));
}

export function sameValue(field: SyncedField, a: Fields, b: Fields): boolean {
  switch (field) {
    case "allowedIPs":
      // Order of entries has no meaning for the restriction.
      return sameList(a.allowedIPs, b.allowedIPs, false);
    case "permissions":
      return sameList(a.permissions, b.permissions, false);
    default:
      return a[field] === b[field];
  }
}

export function changedFields(from: Fields, to: Fields): SyncedField[] {
  return SYNCED_FIELDS.filter((field) => !sameValue(field, from, to));
}

export function withField(target: Fields, field: SyncedField, source: Fields): Fields {
  return { ...target, [field]: source[field] };
}

/** A remote's answer as fields; null with the reason when it cannot be stored here. */
export function fieldsOfDto(dto: ApiKeyDto): { ok: true; fields: Fields } | { ok: false; reason: string } {
  const validFrom = dto.validFrom === undefined ? null : parseApiDateTime(dto.validFrom);
  const validTo = dto.validTo === undefined ? null : parseApiDateTime(dto.validTo);
  if (dto.validFrom !== undefined && validFrom === null) {
    return { ok: false, reason: `its validFrom ${JSON.stringify(dto.validFrom)} is not a datetime` };
  }
  if (dto.validTo !== undefined && validTo === null) {
    return { ok: false, reason: `its validTo ${JSON.stringify(dto.validTo)} is not a datetime` };
  }
  const badIp = (dto.allowedIPs ?? []).find((entry) => normalizeIpEntry(entry) === null);
  if (badIp !== undefined)
    return { ok: false, reason: `its allowedIPs entry ${JSON.stringify(badIp)} is not an IP` };
  if (dto.permissions.length === 0) return { ok: false, reason: "it has no permissions" };
  return {
    ok: true,
    fields: {
      name: dto.name,
      allowedIPs: normalizeAllowedIPs(dto.allowedIPs),
      permissions: normalizePermissions(dto.permissions),
      validFrom,
      validTo,
      enabled: dto.enabled,
    },
  };
}

/** One field as the API's JSON shows it (absent bounds and restrictions as null). */
export function apiValueOf(field: SyncedField, fields: Fields): unknown {
  const value = fields[field];
  if ((field === "validFrom" || field === "validTo") && typeof value === "number")
    return formatApiDateTime(value);
  return value;
}

export function createRequestOf(fields: Fields): CreateApiKeyRequest {
  return {
    name: fields.name,
    permissions: fields.permissions,
    ...(fields.allowedIPs !== null && { allowedIPs: fields.allowedIPs }),
    ...(fields.validFrom !== null && { validFrom: formatApiDateTime(fields.validFrom) }),
    ...(fields.validTo !== null && { validTo: formatApiDateTime(fields.validTo) }),
  };
}

/** An update that sets exactly these fields to their values in `fields` (null clears). */
export function updateRequestOf(fields: Fields, only: readonly SyncedField[]): UpdateApiKeyRequest {
  const request: Record<string, unknown> = {};
  for (const field of only) request[field] = apiValueOf(field, fields);
  return request as UpdateApiKeyRequest;
}
