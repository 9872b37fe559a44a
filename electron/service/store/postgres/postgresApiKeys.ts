import type { SecretBox } from "../../crypto/secretBox.ts";
import type { ApiKeyFields } from "../../domain/apiKeyRecords.ts";
import {
  type ApiKeyRow,
  type GrantRow,
  grantOf,
  publicApiKeyDigest,
  sealPublicApiKey,
  storedApiKeyOf,
} from "../apiKeyRows.ts";
import type { ApiKeyWrites, KeyChangeListener } from "../store.ts";
import type { Sql } from "./sql.ts";

const SELECT = `SELECT k.id, k.key, k.account_id, a.account_key, k.name, k.public_api_key_sealed,
  k.allowed_ips, k.permissions, k.valid_from, k.valid_to, k.enabled, k.origin_created_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

function columns(fields: ApiKeyFields): unknown[] {
  return [
    fields.name,
    fields.allowedIPs === null ? null : JSON.stringify(fields.allowedIPs),
    JSON.stringify(fields.permissions),
    fields.validFrom,
    fields.validTo,
    fields.enabled,
  ];
}

/**
 * API keys on PostgreSQL, sealed and digested as on SQLite (apiKeyRows.ts's functions).
 * `changed` is told the publicApiKey of every key a write changes, after the statement; the store
 * tells its listeners then and again after the commit (a cache reload between the two would read
 * the row as it was).
 */
export function postgresApiKeys(
  sql: Sql,
  box: SecretBox,
  listeners: ReadonlySet<KeyChangeListener>,
  changed: (publicApiKey: string, digest?: Buffer) => void,
): ApiKeyWrites {
  const stored = async (where: string, values: unknown[]) => {
    const [row] = await sql.rows<ApiKeyRow>(`${SELECT} WHERE ${where}`, values);
    return row && storedApiKeyOf(box, row);
  };
  return {
    digestOf: (publicApiKey) => publicApiKeyDigest(box, publicApiKey),
    sealCursor: (text, binding) => box.sealCursor(text, binding),
    openCursor: (sealed, binding) => box.openCursor(sealed, binding),
    async grantByDigest(digest) {
      const [row] = await sql.rows<GrantRow>(
        `SELECT key, account_id, permissions, allowed_ips, valid_from, valid_to, enabled
         FROM api_keys WHERE public_api_key_digest = $1`,
        [digest],
      );
      return row && grantOf(row);
    },
    byId: (id) => stored("k.id = $1", [id]),
    async keyIdOf(id) {
      const [row] = await sql.rows<{ key: string }>("SELECT key FROM api_keys WHERE id = $1", [id]);
      return row?.key;
    },
    async keyIdTaken(key) {
      return (await sql.rows("SELECT 1 FROM api_keys WHERE key = $1", [key])).length > 0;
    },
    get: (accountId, key) => stored("k.key = $1 AND k.account_id = $2", [key, accountId]),
    findByPublicApiKey: (publicApiKey) =>
      stored("k.public_api_key_digest = $1", [publicApiKeyDigest(box, publicApiKey)]),
    onChange(listener) {
      (listeners as Set<KeyChangeListener>).add(listener);
      return () => (listeners as Set<KeyChangeListener>).delete(listener);
    },
    async insert(accountId, accountKey, identity, fields, now, createdAt = now) {
      const digest = publicApiKeyDigest(box, identity.publicApiKey);
      const [row] = await sql.rows<{ id: number }>(
        `INSERT INTO api_keys (key, account_id, public_api_key_digest, public_api_key_sealed, name, allowed_ips,
           permissions, valid_from, valid_to, enabled, created_at, updated_at, origin_created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12) RETURNING id`,
        [
          identity.key,
          accountId,
          digest,
          sealPublicApiKey(box, identity.publicApiKey, identity.key),
          ...columns(fields),
          now,
          createdAt,
        ],
      );
      changed(identity.publicApiKey, digest);
      return { ...fields, id: (row as { id: number }).id, accountId, accountKey, ...identity, createdAt };
    },
    async update(key, fields, now) {
      await sql.count(
        `UPDATE api_keys SET name = $1, allowed_ips = $2, permissions = $3, valid_from = $4, valid_to = $5,
           enabled = $6, updated_at = $7 WHERE id = $8`,
        [...columns(fields), now, key.id],
      );
      changed(key.publicApiKey);
      return { ...key, ...fields };
    },
    async replacePublicApiKey(key, publicApiKey, now) {
      await sql.count(
        `UPDATE api_keys SET public_api_key_digest = $1, public_api_key_sealed = $2, updated_at = $3
         WHERE id = $4`,
        [publicApiKeyDigest(box, publicApiKey), sealPublicApiKey(box, publicApiKey, key.key), now, key.id],
      );
      changed(key.publicApiKey);
      changed(publicApiKey);
      return { ...key, publicApiKey };
    },
  };
}
