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
    return this.#data.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      fields,
      this.#now(),
    );
  }

  create(caller: Account, accountKey: string, body: unknown): ApiKeyDto {
    const account = this.resolveAccount(caller, accountKey);
    const parsed = createApiKeyRequestSchema.safeParse(body);
    if (!parsed.success) throw badRequest(INVALID_BODY, validationErrorsOf(parsed.error.issues));
    const fields = fieldsForCreate(parsed.data);
    if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
    return toApiKeyDto(this.#insert(account, fields.value));
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

  update(caller: Account, accountKey: string, key: string, body: unknown): ApiKeyDto {
    const account = this.resolveAccount(caller, accountKey);
    const stored = this.#storedKey(account, key);
    const parsed = updateApiKeyRequestSchema.safeParse(body);
    if (!parsed.success) throw badRequest(INVALID_BODY, validationErrorsOf(parsed.error.issues));
    const fields = fieldsAfterUpdate(stored, parsed.data);
    if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
    return toApiKeyDto(this.#data.apiKeys.update(stored, fields.value, this.#now()));
  }

  /** `POST /2fa/{version}/api-key`: a TFA key in the caller's own account; answers its publicApiKey. */
  createTfaKey(caller: Account): string {
    const now = this.#now();
    const created = this.#insert(caller, {
      name: `TFA key ${formatApiDateTime(now)}`,
      allowedIPs: null,
      permissions: ["TFA"],
      validFrom: null,
      validTo: null,
      enabled: true,
    });
    return created.publicApiKey;
  }

  /** The key a publicApiKey belongs to, in any account (App authorization). */
  findByPublicApiKey(publicApiKey: string): StoredApiKey | undefined {
    return this.#data.apiKeys.findByPublicApiKey(publicApiKey);
  }
}
