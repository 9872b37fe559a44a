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
import { badRequest, notFound } from "./errors.ts";
import type { Account } from "./store/accountStore.ts";

const listQuerySchema = z.strictObject({
  enabled: z.enum(["true", "false"], { error: "must be true or false, given once" }).optional(),
  name: z.string({ error: "must be given once" }).optional(),
  publicApiKey: z.string({ error: "must be given once" }).optional(),
});

const INVALID_BODY = "the request has invalid fields; see validationErrors";

/** The key-management operations, for an already authenticated caller. */
export class KeyService {
  readonly #data: DataDir;
  readonly #now: () => number;

  constructor(data: DataDir, now: () => number = Date.now) {
    this.#data = data;
    this.#now = now;
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

  async create(caller: Account, accountKey: string, body: unknown): Promise<ApiKeyDto> {
    const account = this.resolveAccount(caller, accountKey);
    const parsed = createApiKeyRequestSchema.safeParse(body);
    if (!parsed.success) throw badRequest(INVALID_BODY, validationErrorsOf(parsed.error.issues));
    const fields = fieldsForCreate(parsed.data);
    if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
    return toApiKeyDto(await this.#data.writes.run(() => this.#insert(account, fields.value)));
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

  /** `POST /2fa/{version}/api-key`: a TFA key in the caller's own account; answers its publicApiKey. */
  async createTfaKey(caller: Account): Promise<string> {
    const fields: ApiKeyFields = {
      name: `TFA key ${formatApiDateTime(this.#now())}`,
      allowedIPs: null,
      permissions: ["TFA"],
      validFrom: null,
      validTo: null,
      enabled: true,
    };
    const created = await this.#data.writes.run(() => this.#insert(caller, fields));
    return created.publicApiKey;
  }
}
