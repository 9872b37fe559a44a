import { z } from "zod";
import type { ApiKeyDto, ApiKeyListDto } from "../../shared/apiKeys.ts";
import {
  ACCOUNT_KEY_PATTERN,
  createApiKeyRequestSchema,
  KEY_ID_PATTERN,
  updateApiKeyRequestSchema,
} from "../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../shared/datetime.ts";
import type { DataDir } from "./dataDir.ts";
import {
  type ApiKeyFields,
  fieldsAfterUpdate,
  fieldsForCreate,
  type StoredApiKey,
  toApiKeyDto,
  validationErrorsOf,
} from "./domain/apiKeyRules.ts";
import { newKeyId, newPublicApiKey } from "./domain/identifiers.ts";
import { badRequest, conflict, notFound } from "./errors.ts";
import type { Account } from "./store/accountStore.ts";
import { IdempotencyStore, type IdempotentRequest } from "./store/idempotencyStore.ts";

const listQuerySchema = z.strictObject({
  enabled: z.enum(["true", "false"], { error: "must be true or false, given once" }).optional(),
  name: z.string({ error: "must be given once" }).optional(),
  publicApiKey: z.string({ error: "must be given once" }).optional(),
});

const INVALID_BODY = "the request has invalid fields; see validationErrors";
const IDEMPOTENCY_KEY_REUSED =
  "this Idempotency-Key was already used for a different request (another path or body) in the last 24 hours; " +
  "send a new request with a new Idempotency-Key, or repeat the first request exactly to get its answer again";

/** The key-management operations, for an already authenticated caller. */
export class KeyService {
  readonly #data: DataDir;
  readonly #now: () => number;
  readonly #idempotency: IdempotencyStore;

  constructor(data: DataDir, now: () => number = Date.now) {
    this.#data = data;
    this.#now = now;
    this.#idempotency = new IdempotencyStore(data.db, data.box);
  }

  /** `_` is the caller's own account; otherwise the caller's own or one of its sub-accounts. */
  resolveAccount(caller: Account, accountKey: string): Account {
    if (accountKey === "_") return caller;
    const account = ACCOUNT_KEY_PATTERN.test(accountKey)
      ? this.#data.accounts.byAccountKey(accountKey)
      : undefined;
    if (!account || !this.#data.accounts.manages(caller.id, account.id)) {
      throw notFound(`no account ${accountKey} among the accounts these credentials manage`);
    }
    return account;
  }

  #storedKey(account: Account, key: string): StoredApiKey {
    const stored = KEY_ID_PATTERN.test(key) ? this.#data.apiKeys.get(account.id, key) : undefined;
    if (!stored) throw notFound(`no API key ${key} in account ${account.accountKey}`);
    return stored;
  }

  #insert(account: Account, fields: ApiKeyFields): StoredApiKey {
    const created = this.#data.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      fields,
      this.#now(),
    );
    for (const journal of this.#data.keyJournals) journal.created(created);
    return created;
  }

  /**
   * Runs a create once per idempotency key: without a key, `create` runs as it is; with one, the
   * lookup of the caller's record, the create and the new record happen in one write step, so
   * a retry (also a concurrent one) answers the remembered result instead of creating again.
   */
  async #createOnce<T>(
    caller: Account,
    idempotencyKey: string | undefined,
    request: IdempotentRequest,
    create: () => T,
  ): Promise<T> {
    if (idempotencyKey === undefined) return this.#data.writes.run(create);
    const digest = this.#idempotency.digestOf(caller.id, request);
    return this.#data.writes.run(() => {
      const now = this.#now();
      this.#idempotency.purgeExpired(now);
      const found = this.#idempotency.lookup(caller.id, idempotencyKey, digest, now);
      if (found.kind === "conflict") throw conflict(IDEMPOTENCY_KEY_REUSED);
      if (found.kind === "replay") return JSON.parse(found.answer.body) as T;
      const created = create();
      const answer = { status: 200, body: JSON.stringify(created) };
      this.#idempotency.remember(caller.id, idempotencyKey, digest, answer, now);
      return created;
    });
  }

  /** `idempotencyKey`: the caller's `Idempotency-Key` header, already validated by the route. */
  async create(
    caller: Account,
    accountKey: string,
    body: unknown,
    idempotencyKey?: string,
  ): Promise<ApiKeyDto> {
    const account = this.resolveAccount(caller, accountKey);
    const parsed = createApiKeyRequestSchema.safeParse(body);
    if (!parsed.success) throw badRequest(INVALID_BODY, validationErrorsOf(parsed.error.issues));
    const fields = fieldsForCreate(parsed.data);
    if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
    // `_` and the account's own accountKey name the same path.
    const request = { method: "POST", path: `/settings/1/accounts/${account.accountKey}/api-keys`, body };
    return this.#createOnce(caller, idempotencyKey, request, () =>
      toApiKeyDto(this.#insert(account, fields.value)),
    );
  }

  list(caller: Account, accountKey: string, query: unknown): ApiKeyListDto {
    const account = this.resolveAccount(caller, accountKey);
    const parsed = listQuerySchema.safeParse(query ?? {});
    if (!parsed.success) {
      throw badRequest(
        "the query has invalid parameters; see validationErrors",
        validationErrorsOf(parsed.error.issues),
      );
    }
    const { enabled, name, publicApiKey } = parsed.data;
    const keys = this.#data.apiKeys.list(account.id, {
      ...(enabled !== undefined && { enabled: enabled === "true" }),
      ...(name !== undefined && { name: name.trim() }),
      ...(publicApiKey !== undefined && { publicApiKey }),
    });
    return { apiKeys: keys.map(toApiKeyDto) };
  }

  get(caller: Account, accountKey: string, key: string): ApiKeyDto {
    return toApiKeyDto(this.#storedKey(this.resolveAccount(caller, accountKey), key));
  }

  async update(caller: Account, accountKey: string, key: string, body: unknown): Promise<ApiKeyDto> {
    const account = this.resolveAccount(caller, accountKey);
    this.#storedKey(account, key);
    const parsed = updateApiKeyRequestSchema.safeParse(body);
    if (!parsed.success) throw badRequest(INVALID_BODY, validationErrorsOf(parsed.error.issues));
    // Read, merge and write in one step of the group commit, so concurrent updates never lose fields.
    const updated = await this.#data.writes.run(() => {
      const stored = this.#storedKey(account, key);
      const fields = fieldsAfterUpdate(stored, parsed.data);
      if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
      const updated = this.#data.apiKeys.update(stored, fields.value, this.#now());
      for (const journal of this.#data.keyJournals) journal.updated(stored, updated);
      return updated;
    });
    return toApiKeyDto(updated);
  }

  /**
   * `POST /2fa/{version}/api-key`: a TFA key in the caller's own account; answers its publicApiKey.
   * The call takes no body, so the request an idempotency key stands for is the version alone.
   */
  async createTfaKey(
    caller: Account,
    options: { version?: string; idempotencyKey?: string } = {},
  ): Promise<string> {
    const fields: ApiKeyFields = {
      name: `TFA key ${formatApiDateTime(this.#now())}`,
      allowedIPs: null,
      permissions: ["TFA"],
      validFrom: null,
      validTo: null,
      enabled: true,
    };
    const request = { method: "POST", path: `/2fa/${options.version ?? "2"}/api-key`, body: undefined };
    return this.#createOnce(
      caller,
      options.idempotencyKey,
      request,
      () => this.#insert(caller, fields).publicApiKey,
    );
  }
}
