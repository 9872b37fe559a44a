import type {
  ApiKeyDto,
  ApiKeyWithExtrasDto,
  CreateApiKeyRequest,
  KeyUsageSeriesDto,
  UpdateApiKeyRequest,
  UsageBucketDto,
} from "../../shared/apiKeys.ts";
import { DAY_MS, KEY_ID_PATTERN } from "../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../shared/datetime.ts";
import type { Account } from "./domain/accounts.ts";
import {
  type ApiKeyFields,
  fieldsAfterUpdate,
  fieldsForCreate,
  type StoredApiKey,
  toApiKeyDto,
} from "./domain/apiKeyRecords.ts";
import { type AuditOrigin, keyCreatedEntry, keyUpdatedEntry } from "./domain/auditEntries.ts";
import type { IdempotentRequest } from "./domain/idempotency.ts";
import { newKeyId, newPublicApiKey } from "./domain/identifiers.ts";
import { CURSOR_REFUSED, cursorBinding, decodeListCursor, encodeListCursor } from "./domain/listCursor.ts";
import { badRequest, conflict, INVALID_BODY, INVALID_QUERY, notFound } from "./errors.ts";
import type { KeyLister } from "./keyListing.ts";
import { type CountQuery, DEFAULT_PAGE_LIMIT, type GetQuery, type ListQuery } from "./keyQueries.ts";
import type { ServiceStorage } from "./serviceStorage.ts";
import type { ApiKeyFilter, ListExtras, Store, StoreWrite } from "./store/store.ts";
import type { UsageRecorder } from "./usage/usageRecorder.ts";

/** A list request, validated: which keys, and which page of them if paging was asked for. */
export interface KeyListRequest {
  accountId: number;
  accountKey: string;
  filter: ApiKeyFilter;
  /** null: every key, in one answer. */
  page: { limit: number; after: number } | null;
  /** The list its pages' cursors are bound to: the account and the query (domain/listCursor.ts). */
  binding: string;
  /** What the keys carry beyond the spec's fields (include=). */
  extras: ListExtras;
}

const USAGE_OFF = "this service does not record the usage of keys (it runs with --usage off)";
/** Held by the create purging expired Idempotency-Key records (`tx.tryLock`). */
const IDEMPOTENCY_PURGE_LOCK = "idempotency-purge";
const IDEMPOTENCY_KEY_REUSED =
  "this Idempotency-Key was already used for a different request (another path or body) in the last 24 hours; " +
  "send a new request with a new Idempotency-Key, or repeat the first request exactly to get its answer again";

/**
 * The key-management operations, for an already authenticated caller, on requests whose query and
 * body their route has validated (the schemas of keyQueries.ts and shared/apiKeys.ts): what is
 * checked here are the rules a schema cannot state (validTo after validFrom, a cursor of this list).
 */
export class KeyService {
  readonly #data: Pick<ServiceStorage, "store" | "keyJournals">;
  readonly #store: Store;
  readonly #now: () => number;

  readonly #lister: KeyLister;

  readonly #usage: UsageRecorder | undefined;

  constructor(
    data: Pick<ServiceStorage, "store" | "keyJournals">,
    now: (() => number) | undefined,
    lister: KeyLister,
    usage?: UsageRecorder,
  ) {
    this.#usage = usage;
    this.#data = data;
    this.#store = data.store;
    this.#now = now ?? Date.now;
    this.#lister = lister;
  }

  /**
   * `_` is the caller's own account; otherwise the caller's own or one of its sub-accounts. A 404
   * names `field`, the request's part that named the account (the path's accountKey by default).
   */
  async resolveAccount(caller: Account, accountKey: string, field = "accountKey"): Promise<Account> {
    if (accountKey === "_") return caller;
    const account = KEY_ID_PATTERN.test(accountKey)
      ? await this.#store.accounts.byAccountKey(accountKey)
      : undefined;
    if (!account || !(await this.#store.accounts.manages(caller.id, account.id))) {
      throw notFound(`no account ${accountKey} among the accounts these credentials manage`, field);
    }
    return account;
  }

  /** The key, read by the store or by a write's `tx` (which sees the write's own changes). */
  async storedKey(
    account: Account,
    key: string,
    apiKeys: Store["apiKeys"] = this.#store.apiKeys,
  ): Promise<StoredApiKey> {
    const stored = KEY_ID_PATTERN.test(key) ? await apiKeys.get(account.id, key) : undefined;
    if (!stored) throw notFound(`no API key ${key} in account ${account.accountKey}`, "key");
    return stored;
  }

  async #insert(
    tx: StoreWrite,
    account: Account,
    fields: ApiKeyFields,
    origin: AuditOrigin,
  ): Promise<StoredApiKey> {
    const now = this.#now();
    const created = await tx.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      fields,
      now,
    );
    await tx.audit.append(keyCreatedEntry(created, origin, now));
    // The sync outbox: in this write, through its tx.
    for (const journal of this.#data.keyJournals) await journal.created(tx, created, origin);
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
    create: (tx: StoreWrite) => Promise<T>,
  ): Promise<T> {
    if (idempotencyKey === undefined) return this.#store.write(create);
    const digest = this.#store.idempotency.digestOf(caller.id, request);
    return this.#store.write(async (tx) => {
      const now = this.#now();
      // One replica of a shared database purges at a time; the others' creates skip it.
      if (await tx.tryLock(IDEMPOTENCY_PURGE_LOCK)) await tx.idempotency.purgeExpired(now);
      const found = await tx.idempotency.lookup(caller.id, idempotencyKey, digest, now);
      if (found.kind === "conflict") throw conflict(IDEMPOTENCY_KEY_REUSED);
      if (found.kind === "replay") return JSON.parse(found.answer.body) as T;
      const created = await create(tx);
      const answer = { status: 200, body: JSON.stringify(created) };
      await tx.idempotency.remember(caller.id, idempotencyKey, digest, answer, now);
      return created;
    });
  }

  /**
   * A key in `account` (one the caller manages, resolveAccount). `body`: the request's body as it
   * came, which an idempotency key stands for; `idempotencyKey`: the caller's `Idempotency-Key`
   * header, already validated by the route. `origin`: who is recorded in the audit history (the
   * caller through the API by default).
   */
  async create(
    caller: Account,
    account: Account,
    request: CreateApiKeyRequest,
    options: { body?: unknown; idempotencyKey?: string | undefined; origin?: AuditOrigin } = {},
  ): Promise<ApiKeyDto> {
    const fields = fieldsForCreate(request);
    if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
    // `_` and the account's own accountKey name the same path.
    const idempotent = {
      method: "POST",
      path: `/settings/1/accounts/${account.accountKey}/api-keys`,
      body: options.body ?? request,
    };
    const origin = options.origin ?? apiOrigin(caller);
    return this.#createOnce(caller, options.idempotencyKey, idempotent, async (tx) =>
      toApiKeyDto(await this.#insert(tx, account, fields.value, origin)),
    );
  }

  /** A list request (filters and paging) of `account` (one the caller manages, resolveAccount). */
  listRequest(account: Account, query: ListQuery): KeyListRequest {
    const { limit, cursor, sort, order, include, ...filters } = query;
    this.#requireUsage(include?.has("usage") ? "include" : undefined);
    this.#requireUsage(filters.unusedForDays !== undefined ? "unusedForDays" : undefined);
    // The query as it selects and orders (a blank nameContains is no filter, created ascending is
    // the default order): equivalent spellings of one list share its cursors.
    const binding = cursorBinding("keys", account.id, {
      ...filters,
      nameContains: filters.nameContains?.trim() || undefined,
      name: filters.name?.trim(),
      sort: sort ?? "created",
      order: order ?? "asc",
    });
    let page: KeyListRequest["page"] = null;
    if (limit !== undefined || cursor !== undefined) {
      const after = cursor === undefined ? 0 : decodeListCursor(cursor, binding, this.#store.apiKeys);
      if (after === null) throw badRequest(INVALID_QUERY, { cursor: [CURSOR_REFUSED] });
      page = { limit: limit ?? DEFAULT_PAGE_LIMIT, after };
    }
    return {
      accountId: account.id,
      accountKey: account.accountKey,
      filter: {
        ...filterOf(filters, this.#now()),
        ...((sort !== undefined || order !== undefined) && {
          sort: { by: sort ?? "created", desc: order === "desc" },
        }),
      },
      page,
      binding,
      extras: {
        ...(include?.has("created") && { created: true }),
        ...(include?.has("usage") && { usageAt: this.#now() }),
      },
    };
  }

  /** A 400 naming `field` when it asks for usage and this service records none. */
  #requireUsage(field: string | undefined): void {
    if (field !== undefined && !this.#usage) {
      throw badRequest(USAGE_OFF, { [field]: ["usage is not recorded here"] });
    }
  }

  /**
   * Lists read usage from the database (in their worker): what the recorder still holds is
   * written first, so the answer counts every call made before it was asked for. That is one
   * batch of the keys used since the last write (bounded by the calls of about a second, the
   * write the timer would make anyway), never work per listed key.
   */
  async #writeUsageFor(filter: ApiKeyFilter, extras: ListExtras): Promise<void> {
    if (extras.usageAt !== undefined || filter.unusedSince !== undefined) await this.#usage?.flush();
  }

  /** One page as JSON text, `{"apiKeys":[...],"nextCursor":...}`: nextCursor is null on the last page. */
  async pageText(request: KeyListRequest, signal?: AbortSignal): Promise<string> {
    const { limit, after } = request.page ?? { limit: DEFAULT_PAGE_LIMIT, after: 0 };
    await this.#writeUsageFor(request.filter, request.extras);
    const page = await this.#lister.page(listedAccount(request), request.filter, after, limit, signal);
    const nextCursor =
      page.more && page.lastId !== undefined
        ? JSON.stringify(encodeListCursor(page.lastId, request.binding, this.#store.apiKeys))
        : "null";
    return `{"apiKeys":[${page.texts.join(",")}],"nextCursor":${nextCursor}}`;
  }

  /**
   * Every matching key as the text of `{"apiKeys":[...]}`, produced piece by piece for a stream
   * with backpressure: memory holds a few pieces, never the whole list.
   */
  async *listText(request: KeyListRequest, signal?: AbortSignal): AsyncGenerator<string | Uint8Array> {
    await this.#writeUsageFor(request.filter, request.extras);
    yield '{"apiKeys":[';
    yield* this.#lister.pieces(listedAccount(request), request.filter, signal);
    yield "]}";
  }

  /** A piece of listText the socket has written: its memory may be used for a later piece. */
  recyclePiece(piece: Uint8Array): void {
    this.#lister.recycle?.(piece);
  }

  /** How many keys of the account the filters match. */
  async count(account: Account, query: CountQuery, signal?: AbortSignal): Promise<{ count: number }> {
    const filter = filterOf(query, this.#now());
    this.#requireUsage(filter.unusedSince !== undefined ? "unusedForDays" : undefined);
    await this.#writeUsageFor(filter, {});
    return { count: await this.#lister.count(account.id, filter, signal) };
  }

  /** Ends what the lists hold (their worker thread). */
  close(): Promise<void> {
    return this.#lister.close();
  }

  /**
   * The key; with `include=usage,created` in the query (a Keydesk extension), its usage (stored
   * plus what the recorder still holds: exact) and its creation time too.
   */
  async get(stored: StoredApiKey, query: GetQuery = {}): Promise<ApiKeyWithExtrasDto> {
    const include = query.include;
    this.#requireUsage(include?.has("usage") ? "include" : undefined);
    const dto: ApiKeyWithExtrasDto = toApiKeyDto(stored);
    if (include?.has("created")) {
      dto.createdAt = stored.createdAt === null ? null : formatApiDateTime(stored.createdAt);
    }
    if (include?.has("usage") && this.#usage) dto.usage = await this.#usage.usageOf(stored.key, stored.id);
    return dto;
  }

  /**
   * The key's calls per hour over the last 48 hours and per UTC day over the last 30 days (a
   * Keydesk extension), stored plus what the recorder still holds, as include=usage is.
   */
  async usageSeries(stored: StoredApiKey): Promise<KeyUsageSeriesDto> {
    this.#requireUsage("usage");
    const series = await (this.#usage as UsageRecorder).seriesOf(stored.key, stored.id);
    const dto = (buckets: typeof series.hours): UsageBucketDto[] =>
      buckets.map(({ start, allowed, refused }) => ({ start: formatApiDateTime(start), allowed, refused }));
    return { hours: dto(series.hours), days: dto(series.days) };
  }

  /** The key `key` of `account` (one the caller manages), as the route found it before its body. */
  async update(
    caller: Account,
    account: Account,
    key: string,
    request: UpdateApiKeyRequest,
    origin: AuditOrigin = apiOrigin(caller),
  ): Promise<ApiKeyDto> {
    // Read, merge and write in one write, so concurrent updates never lose fields.
    const updated = await this.#store.write(async (tx) => {
      const stored = await this.storedKey(account, key, tx.apiKeys);
      const fields = fieldsAfterUpdate(stored, request);
      if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
      const now = this.#now();
      const updated = await tx.apiKeys.update(stored, fields.value, now);
      const entry = keyUpdatedEntry(stored, updated, origin, now);
      if (entry) await tx.audit.append(entry);
      for (const journal of this.#data.keyJournals) await journal.updated(tx, stored, updated, origin);
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
    options: { version?: string; idempotencyKey?: string; origin?: AuditOrigin } = {},
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
      async (tx) =>
        (await this.#insert(tx, caller, fields, options.origin ?? apiOrigin(caller))).publicApiKey,
    );
  }
}

/** A caller of the API who did not say more about itself. */
function apiOrigin(caller: Account): AuditOrigin {
  return { actor: caller.username, channel: "api", address: null, reason: null };
}

/**
 * Blank filters are no filters: a search box left empty lists everything. A state is evaluated
 * at the time the request arrives.
 */
function filterOf(query: CountQuery, now: number): ApiKeyFilter {
  const nameContains = query.nameContains?.trim();
  return {
    ...(query.enabled !== undefined && { enabled: query.enabled === "true" }),
    ...(query.name !== undefined && { name: query.name.trim() }),
    ...(query.publicApiKey !== undefined && { publicApiKey: query.publicApiKey }),
    ...(nameContains && { nameContains }),
    ...(query.permission !== undefined && { permission: query.permission }),
    ...(query.state !== undefined && { state: query.state, now }),
    ...(query.unusedForDays !== undefined && { unusedSince: now - query.unusedForDays * DAY_MS }),
  };
}

function listedAccount(request: KeyListRequest) {
  return { id: request.accountId, accountKey: request.accountKey, extras: request.extras };
}
