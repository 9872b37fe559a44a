import type { Permission } from "../../../shared/apiKeys.ts";
import type { SealedValue, SecretBox } from "../crypto/secretBox.ts";
import type { StoredApiKey } from "../domain/apiKeyRecords.ts";
import type { KeyGrant } from "../domain/keyAuthorization.ts";

// A key's rows and how its values are kept at rest, the same on SQLite (apiKeyStore.ts) and
// PostgreSQL (postgres/postgresApiKeys.ts): no SQL here, so neither store depends on the other.

/** A key's row as either database returns it (SQLite's flags are 0/1, PostgreSQL's booleans). */
export interface ApiKeyRow {
  id: number;
  key: string;
  account_id: number;
  account_key: string;
  name: string;
  public_api_key_sealed: Buffer;
  allowed_ips: string | null;
  permissions: string;
  valid_from: number | null;
  valid_to: number | null;
  enabled: number | boolean;
  origin_created_at: number | null;
}

export interface GrantRow {
  key: string;
  account_id: number;
  permissions: string;
  allowed_ips: string | null;
  valid_from: number | null;
  valid_to: number | null;
  enabled: number | boolean;
}

/**
 * How a publicApiKey is kept at rest, on either database: sealed with the data key and bound to
 * its key id (a sealed value moved to another row does not open), found by its keyed digest.
 */
export function sealPublicApiKey(box: SecretBox, publicApiKey: string, key: string): Buffer {
  return box.encrypt(publicApiKey, key);
}

function unsealPublicApiKey(box: SecretBox, sealed: Buffer, key: string): string {
  return box.decrypt(sealed, key);
}

/** The publicApiKeys of a list's rows (each sealed value with its key id), in order. */
export function unsealPublicApiKeys(box: SecretBox, sealed: readonly SealedValue[]): string[] {
  return box.decryptMany(sealed);
}

/** The lookup index of a publicApiKey (public_api_key_digest). */
export function publicApiKeyDigest(box: SecretBox, publicApiKey: string): Buffer {
  return box.digest(publicApiKey);
}

export function grantOf(row: GrantRow): KeyGrant {
  return {
    key: row.key,
    accountId: row.account_id,
    permissions: JSON.parse(row.permissions) as Permission[],
    allowedIPs: row.allowed_ips === null ? null : (JSON.parse(row.allowed_ips) as string[]),
    validFrom: row.valid_from,
    validTo: row.valid_to,
    enabled: row.enabled === true || row.enabled === 1,
  };
}

export function storedApiKeyOf(box: SecretBox, row: ApiKeyRow): StoredApiKey {
  return {
    id: row.id,
    key: row.key,
    accountId: row.account_id,
    accountKey: row.account_key,
    name: row.name,
    publicApiKey: unsealPublicApiKey(box, row.public_api_key_sealed, row.key),
    allowedIPs: row.allowed_ips === null ? null : (JSON.parse(row.allowed_ips) as string[]),
    permissions: JSON.parse(row.permissions) as Permission[],
    validFrom: row.valid_from,
    validTo: row.valid_to,
    enabled: row.enabled === true || row.enabled === 1,
    createdAt: row.origin_created_at,
  };
}
