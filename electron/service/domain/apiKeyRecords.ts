import type { z } from "zod";
import type { ValidationErrors } from "../../../shared/apiErrors.ts";
import type {
  ApiKeyDto,
  CreateApiKeyRequest,
  Permission,
  UpdateApiKeyRequest,
} from "../../../shared/apiKeys.ts";
import { type KeyUsageDto, PERMISSIONS } from "../../../shared/apiKeys.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../shared/datetime.ts";
import { normalizeIpEntry } from "../../../shared/ip.ts";
import type { UsageCounts } from "./keyUsage.ts";

/**
 * The service's API-key records: plain functions from request data to the stored fields, and from a
 * stored key to the API's answers (the resource's rules both sides share are shared/apiKeyRules.ts).
 */

/** The fields a caller controls. Times are epoch milliseconds; null means "not set". */
export interface ApiKeyFields {
  name: string;
  allowedIPs: string[] | null;
  permissions: Permission[];
  validFrom: number | null;
  validTo: number | null;
  enabled: boolean;
}

export interface StoredApiKey extends ApiKeyFields {
  id: number;
  key: string;
  publicApiKey: string;
  accountId: number;
  accountKey: string;
  /** When the key was created (ms), where it was created; null when that is not known (a sync pull). */
  createdAt: number | null;
}

export type RuleResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationErrors };

function addError(errors: ValidationErrors, field: string, message: string): void {
  // Own entries only: an unknown field named "constructor" or "toString" must not hit Object.prototype.
  const list = Object.hasOwn(errors, field) ? (errors[field] as string[]) : [];
  if (!list.includes(message)) list.push(message);
  Object.defineProperty(errors, field, { value: list, enumerable: true, writable: true, configurable: true });
}

/** Turns schema issues into per-field messages (unknown fields each get their own entry). */
export function validationErrorsOf(issues: readonly z.core.$ZodIssue[]): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) addError(errors, key, "is not a known field");
    } else {
      const field = issue.path.length > 0 ? String(issue.path[0]) : "body";
      addError(errors, field, issue.message);
    }
  }
  return errors;
}

/** Unique normalized entries in their given order; an empty list means "no restriction". */
export function normalizeAllowedIPs(entries: readonly string[] | null | undefined): string[] | null {
  if (!entries) return null;
  const normalized = [...new Set(entries.map((entry) => normalizeIpEntry(entry) as string))];
  return normalized.length === 0 ? null : normalized;
}

export function normalizePermissions(permissions: readonly Permission[] | undefined): Permission[] {
  if (!permissions) return ["ALL"];
  return PERMISSIONS.filter((permission) => permissions.includes(permission));
}

const toTime = (text: string | null | undefined): number | null =>
  text === null || text === undefined ? null : (parseApiDateTime(text) as number);

function windowErrors(validFrom: number | null, validTo: number | null): ValidationErrors {
  const errors: ValidationErrors = {};
  if (validFrom !== null && validTo !== null && validTo <= validFrom) {
    addError(errors, "validTo", `must be after validFrom (${formatApiDateTime(validFrom)})`);
  }
  return errors;
}

function result(fields: ApiKeyFields, errors: ValidationErrors): RuleResult<ApiKeyFields> {
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: fields };
}

/** The stored fields of a new key, from a request that already passed the schema. */
export function fieldsForCreate(request: CreateApiKeyRequest): RuleResult<ApiKeyFields> {
  const fields: ApiKeyFields = {
    name: request.name.trim(),
    allowedIPs: normalizeAllowedIPs(request.allowedIPs),
    permissions: normalizePermissions(request.permissions),
    validFrom: toTime(request.validFrom),
    validTo: toTime(request.validTo),
    enabled: true,
  };
  return result(fields, windowErrors(fields.validFrom, fields.validTo));
}

/**
 * The fields after an update: present fields replace stored ones, absent ones are kept,
 * null clears allowedIPs/validFrom/validTo. Service-assigned fields may only be repeated as they are.
 */
export function fieldsAfterUpdate(
  stored: StoredApiKey,
  request: UpdateApiKeyRequest,
): RuleResult<ApiKeyFields> {
  const fields: ApiKeyFields = {
    name: request.name === undefined ? stored.name : request.name.trim(),
    allowedIPs:
      request.allowedIPs === undefined ? stored.allowedIPs : normalizeAllowedIPs(request.allowedIPs),
    permissions:
      request.permissions === undefined ? stored.permissions : normalizePermissions(request.permissions),
    validFrom: request.validFrom === undefined ? stored.validFrom : toTime(request.validFrom),
    validTo: request.validTo === undefined ? stored.validTo : toTime(request.validTo),
    enabled: request.enabled ?? stored.enabled,
  };
  const errors = windowErrors(fields.validFrom, fields.validTo);
  for (const field of ["key", "publicApiKey", "accountKey"] as const) {
    const sent = request[field];
    if (sent !== undefined && sent !== stored[field]) {
      addError(errors, field, "is assigned by the service and cannot be changed");
    }
  }
  return result(fields, errors);
}

/**
 * A key as a list reads it: the publicApiKey decrypted, the JSON columns as stored (they are
 * written with JSON.stringify of normalized values, so they are already the answer's text).
 */
export interface ListedKey {
  id: number;
  key: string;
  name: string;
  publicApiKey: string;
  allowedIPsJson: string | null;
  permissionsJson: string;
  validFrom: number | null;
  validTo: number | null;
  enabled: boolean;
  /** Only when the list asked for it (include=created). */
  createdAt?: number | null;
  /** Only when the list asked for it (include=usage): the stored usage, as the recorder wrote it. */
  usage?: StoredUsageCounts;
}

/** A key's usage as stored (times in ms, 0 or null for never), in the shape of the answer's `usage`. */
interface StoredUsageCounts {
  lastUsedAt: number | null;
  lastUsedFrom: string | null;
  lastRefusedAt: number | null;
  lastRefusedFrom: string | null;
  total: UsageCounts;
  last24Hours: UsageCounts;
}

/** The answer's `usage` of stored usage: times as API datetimes. */
function keyUsageDto(usage: StoredUsageCounts): KeyUsageDto {
  const time = (at: number | null) => (at ? formatApiDateTime(at) : null);
  return {
    lastUsedAt: time(usage.lastUsedAt),
    lastUsedFrom: usage.lastUsedAt ? usage.lastUsedFrom : null,
    lastRefusedAt: time(usage.lastRefusedAt),
    lastRefusedFrom: usage.lastRefusedAt ? usage.lastRefusedFrom : null,
    total: usage.total,
    last24Hours: usage.last24Hours,
  };
}

/**
 * A listed key's answer as JSON text, exactly JSON.stringify(toApiKeyDto(...)) of the same key,
 * built from the stored JSON columns without parsing them: a list of a million keys spends its
 * time on the keys, not on re-serializing permissions.
 */
export function apiKeyJson(accountKey: string, key: ListedKey): string {
  const allowedIPs =
    key.allowedIPsJson === null || key.allowedIPsJson === "[]" ? "" : `,"allowedIPs":${key.allowedIPsJson}`;
  const validFrom = key.validFrom === null ? "" : `,"validFrom":"${formatApiDateTime(key.validFrom)}"`;
  const validTo = key.validTo === null ? "" : `,"validTo":"${formatApiDateTime(key.validTo)}"`;
  return (
    `{"name":${JSON.stringify(key.name)},"key":"${key.key}","publicApiKey":${JSON.stringify(key.publicApiKey)}` +
    `,"accountKey":"${accountKey}"${allowedIPs},"permissions":${key.permissionsJson}${validFrom}${validTo}` +
    `,"enabled":${key.enabled}${extrasJson(key)}}`
  );
}

/** What include= asked for, in the order of toApiKeyDtoWith: createdAt, then usage. */
function extrasJson(key: ListedKey): string {
  let text = "";
  if (key.createdAt !== undefined) {
    text += `,"createdAt":${key.createdAt === null ? "null" : `"${formatApiDateTime(key.createdAt)}"`}`;
  }
  if (key.usage !== undefined) text += `,"usage":${JSON.stringify(keyUsageDto(key.usage))}`;
  return text;
}

export function toApiKeyDto(stored: StoredApiKey): ApiKeyDto {
  // Field order follows the spec's description of a key response.
  return {
    name: stored.name,
    key: stored.key,
    publicApiKey: stored.publicApiKey,
    accountKey: stored.accountKey,
    ...(stored.allowedIPs && { allowedIPs: stored.allowedIPs }),
    permissions: stored.permissions,
    ...(stored.validFrom !== null && { validFrom: formatApiDateTime(stored.validFrom) }),
    ...(stored.validTo !== null && { validTo: formatApiDateTime(stored.validTo) }),
    enabled: stored.enabled,
  };
}
