import type { Permission } from "../../../shared/apiKeys.ts";
import type { SecretBox } from "../crypto/secretBox.ts";
import type { ApiKeyFields, StoredApiKey } from "../domain/apiKeyRules.ts";
import type { KeyGrant } from "../domain/keyAuthorization.ts";
import type { Db } from "./database.ts";

interface ApiKeyRow {
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
  enabled: number;
}

interface GrantRow {
  key: string;
  account_id: number;
  permissions: string;
  allowed_ips: string | null;
  valid_from: number | null;
  valid_to: number | null;
  enabled: number;
}

/** Told the digest of every key written through this store, so caches keyed by it can drop the entry. */
export type KeyChangeListener = (digest: Buffer) => void;

export interface ApiKeyFilter {
  enabled?: boolean;
  name?: string;
  publicApiKey?: string;
}

const SELECT = `SELECT k.id, k.key, k.account_id, a.account_key, k.name, k.public_api_key_sealed,
  k.allowed_ips, k.permissions, k.valid_from, k.valid_to, k.enabled
  FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

/** API keys in SQLite; publicApiKey only ever stored sealed, found through its keyed digest. */
export class ApiKeyStore {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #insert;
  readonly #update;
  readonly #byKey;
  readonly #byDigest;
  readonly #byId;
  readonly #keyTaken;
  readonly #replaceSecret;
  readonly #grantByDigest;
  readonly #listeners = new Set<KeyChangeListener>();

  constructor(db: Db, box: SecretBox) {
    this.#db = db;
    this.#box = box;
    this.#insert = db.prepare(
      `INSERT INTO api_keys (key, account_id, name, public_api_key_digest, public_api_key_sealed, allowed_ips,
        permissions, valid_from, valid_to, enabled, created_at, updated_at)
       VALUES (@key, @accountId, @name, @digest, @sealed, @allowedIPs, @permissions, @validFrom, @validTo,
        @enabled, @now, @now) RETURNING id`,
    );
    this.#update = db.prepare(
      `UPDATE api_keys SET name = @name, allowed_ips = @allowedIPs, permissions = @permissions,
        valid_from = @validFrom, valid_to = @validTo, enabled = @enabled, updated_at = @now WHERE id = @id`,
    );
    this.#byKey = db.prepare<[string, number], ApiKeyRow>(`${SELECT} WHERE k.key = ? AND k.account_id = ?`);
    this.#byDigest = db.prepare<[Buffer], ApiKeyRow>(`${SELECT} WHERE k.public_api_key_digest = ?`);
    this.#byId = db.prepare<[number], ApiKeyRow>(`${SELECT} WHERE k.id = ?`);
    this.#keyTaken = db.prepare<[string], { id: number }>("SELECT id FROM api_keys WHERE key = ?");
    this.#replaceSecret = db.prepare(
      `UPDATE api_keys SET public_api_key_digest = @digest, public_api_key_sealed = @sealed, updated_at = @now
       WHERE id = @id`,
    );
    this.#grantByDigest = db.prepare<[Buffer], GrantRow>(
      `SELECT key, account_id, permissions, allowed_ips, valid_from, valid_to, enabled
       FROM api_keys WHERE public_api_key_digest = ?`,
    );
  }

  onChange(listener: KeyChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(publicApiKey: string): void {
    if (this.#listeners.size === 0) return;
    const digest = this.#box.digest(publicApiKey);
    for (const listener of this.#listeners) listener(digest);
  }

  digestOf(publicApiKey: string): Buffer {
    return this.#box.digest(publicApiKey);
  }

  /** The authorization rules of the key with this digest, read without decrypting anything. */
  grantByDigest(digest: Buffer): KeyGrant | undefined {
    const row = this.#grantByDigest.get(digest);
    if (!row) return undefined;
    return {
      key: row.key,
      accountId: row.account_id,
      permissions: JSON.parse(row.permissions) as Permission[],
      allowedIPs: row.allowed_ips === null ? null : (JSON.parse(row.allowed_ips) as string[]),
      validFrom: row.valid_from,
      validTo: row.valid_to,
      enabled: row.enabled === 1,
    };
  }

  #toStored(row: ApiKeyRow): StoredApiKey {
    return {
      id: row.id,
      key: row.key,
      accountId: row.account_id,
      accountKey: row.account_key,
      name: row.name,
      publicApiKey: this.#box.decrypt(row.public_api_key_sealed, row.key),
      allowedIPs: row.allowed_ips === null ? null : (JSON.parse(row.allowed_ips) as string[]),
      permissions: JSON.parse(row.permissions) as Permission[],
      validFrom: row.valid_from,
      validTo: row.valid_to,
      enabled: row.enabled === 1,
    };
  }

  #columns(fields: ApiKeyFields) {
    return {
      name: fields.name,
      allowedIPs: fields.allowedIPs === null ? null : JSON.stringify(fields.allowedIPs),
      permissions: JSON.stringify(fields.permissions),
      validFrom: fields.validFrom,
      validTo: fields.validTo,
      enabled: fields.enabled ? 1 : 0,
    };
  }

  insert(
    accountId: number,
    accountKey: string,
    identity: { key: string; publicApiKey: string },
    fields: ApiKeyFields,
    now: number,
  ): StoredApiKey {
    const { id } = this.#insert.get({
      ...this.#columns(fields),
      key: identity.key,
      accountId,
      digest: this.#box.digest(identity.publicApiKey),
      sealed: this.#box.encrypt(identity.publicApiKey, identity.key),
      now,
    }) as { id: number };
    this.#changed(identity.publicApiKey);
    return { ...fields, id, accountId, accountKey, ...identity };
  }

  update(stored: StoredApiKey, fields: ApiKeyFields, now: number): StoredApiKey {
    this.#update.run({ ...this.#columns(fields), id: stored.id, now });
    this.#changed(stored.publicApiKey);
    return { ...stored, ...fields };
  }

  /**
   * Gives a key another publicApiKey (a key created here and then on a sync remote takes the
   * remote's value, so that one value works on both). The old value stops working at once.
   */
  replacePublicApiKey(stored: StoredApiKey, publicApiKey: string, now: number): StoredApiKey {
    this.#replaceSecret.run({
      id: stored.id,
      digest: this.#box.digest(publicApiKey),
      sealed: this.#box.encrypt(publicApiKey, stored.key),
      now,
    });
    this.#changed(stored.publicApiKey);
    this.#changed(publicApiKey);
    return { ...stored, publicApiKey };
  }

  byId(id: number): StoredApiKey | undefined {
    const row = this.#byId.get(id);
    return row && this.#toStored(row);
  }

  /** Whether any account has a key with this id (ids are unique across the service). */
  keyIdTaken(key: string): boolean {
    return this.#keyTaken.get(key) !== undefined;
  }

  get(accountId: number, key: string): StoredApiKey | undefined {
    const row = this.#byKey.get(key, accountId);
    return row && this.#toStored(row);
  }

  /** The key with this publicApiKey, in any account. */
  findByPublicApiKey(publicApiKey: string): StoredApiKey | undefined {
    const row = this.#byDigest.get(this.#box.digest(publicApiKey));
    return row && this.#toStored(row);
  }

  /** Keys of one account in creation order, narrowed by every filter given. */
  list(accountId: number, filter: ApiKeyFilter = {}): StoredApiKey[] {
    const where = ["k.account_id = @accountId"];
    const params: Record<string, unknown> = { accountId };
    if (filter.enabled !== undefined) {
      where.push("k.enabled = @enabled");
      params.enabled = filter.enabled ? 1 : 0;
    }
    if (filter.name !== undefined) {
      where.push("k.name = @name");
      params.name = filter.name;
    }
    if (filter.publicApiKey !== undefined) {
      where.push("k.public_api_key_digest = @digest");
      params.digest = this.#box.digest(filter.publicApiKey);
    }
    const rows = this.#db.prepare<[Record<string, unknown>], ApiKeyRow>(
      `${SELECT} WHERE ${where.join(" AND ")} ORDER BY k.id`,
    );
    return rows.all(params).map((row) => this.#toStored(row));
  }
}
