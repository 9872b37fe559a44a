import { createParser } from "eventsource-parser";
import type { z } from "zod";
import type { ApiKeyWithExtrasDto, KeyInclude, KeyUsageSeriesDto } from "../../shared/apiKeys.ts";
import {
  type ApiKeyDto,
  type CreateApiKeyRequest,
  type KeySort,
  type KeyStateFilter,
  matchesStateFilter,
  type Permission,
  sortApiKeys,
  type UpdateApiKeyRequest,
  validityOf,
} from "../../shared/apiKeys.ts";
import type { AuditPageDto } from "../../shared/audit.ts";
import { auditAnswerSchemas } from "../../shared/auditAnswers.ts";
import type { AccountDto, ConnectionVerdict } from "../../shared/bridge.ts";
import { ACTION_HEADER, CLIENT_HEADER, IDEMPOTENCY_KEY_HEADER } from "../../shared/httpHeaders.ts";
import { SERVICE_ROUTES, servicePath } from "../../shared/servicePaths.ts";
import { type CapturedPinDto, PIN_STREAM_EVENTS, type PinStateDto } from "../../shared/tfa.ts";
import { AnswerTooLarge, DEFAULT_MAX_ANSWER_BYTES, formatBytes, readBoundedText } from "./boundedAnswer.ts";
import {
  accountListSchema,
  apiKeyCountSchema,
  apiKeyListSchema,
  apiKeyPageSchema,
  apiKeySchema,
  capturedPinListSchema,
  capturedPinSchema,
  errorBodySchema,
  keyUsageSeriesSchema,
  pinStateSchema,
} from "./responseSchemas.ts";
import { ServiceCallFailure } from "./serviceCallFailure.ts";

/**
 * The one HTTP client of the key-management API, for the embedded service and remote ones
 * alike: base URL plus Basic credentials. Every failure is thrown as a ServiceCallFailure:
 * - the service's error body → its messageId, text and validationErrors;
 * - no answer (refused, DNS, TLS, timeout after 10 s) → UNREACHABLE, naming the URL;
 * - an answer larger than maxAnswerBytes (256 MB by default) → GENERAL_ERROR, read no further;
 * - an answer that is not the API (not JSON, or not the expected shape) → GENERAL_ERROR.
 */

export interface KeyServiceClientOptions {
  baseUrl: string;
  username: string;
  password: string;
  /** Per-request timeout; 10 s by default. */
  timeoutMs?: number;
  /** Aborts every request of this client (its owner is closing). */
  signal?: AbortSignal;
  /** Answers above this many bytes are refused while they stream in; 256 MB by default. */
  maxAnswerBytes?: number;
  /**
   * Sent as `Keydesk-Client` on every request (who calls, for the service's audit; self-declared).
   * Left out: no header (the service counts the caller as `api`).
   */
  clientKind?: KeydeskClientKind;
}

/** `Keydesk-Action`: a create or update that is part of a rotation ("roll") or of a bulk enable/disable. */
type KeydeskAction = "rotate" | "bulk";

/** Options of a key write. */
export interface KeyWriteOptions {
  /** With it, a service that honours `Idempotency-Key` creates the key at most once. */
  idempotencyKey?: string;
  /** Sent as `Keydesk-Action`. */
  action?: KeydeskAction;
}

function writeHeaders(options: KeyWriteOptions): Record<string, string> {
  return {
    ...(options.idempotencyKey !== undefined && { [IDEMPOTENCY_KEY_HEADER]: options.idempotencyKey }),
    ...(options.action !== undefined && { [ACTION_HEADER]: options.action }),
  };
}

/** `Keydesk-Client`: the kind of client calling a Keydesk key service (foreign services ignore it). */
export type KeydeskClientKind = "desktop" | "cli" | "sync";

export interface KeyListFilter {
  enabled?: boolean | undefined;
  name?: string | undefined;
  /** Applied here: the API has no permission filter. */
  permission?: Permission | undefined;
}

/**
 * What a page of keys is narrowed by. `enabled` and `name` (exact) are the API's own; a Keydesk
 * service also filters by `nameContains` (case-insensitive substring) and `permission`, and this
 * client applies those two itself to what any other service answers.
 */
export interface KeyQuery {
  enabled?: boolean | undefined;
  name?: string | undefined;
  nameContains?: string | undefined;
  permission?: Permission | undefined;
  /** The key's state when asked (a Keydesk extension; applied here to what other services answer). */
  state?: KeyStateFilter | undefined;
  /** The order of a list (pages only; a Keydesk extension, applied here to whole lists of other services). */
  sort?: KeySort | undefined;
  /**
   * Keys without an allowed call in N days (a Keydesk extension that needs the service's usage: a
   * service that does not report usage cannot answer it, see listPage).
   */
  unusedForDays?: number | undefined;
  /**
   * What the keys should carry beyond the spec's fields (include=, pages only). A service that
   * refuses or ignores it answers keys without them: they are extras, never a reason to fail.
   */
  include?: readonly KeyInclude[] | undefined;
}

const USAGE_NOT_REPORTED =
  "this service does not report the usage of keys, so it cannot list keys by when they were last used";

export interface KeyPage {
  keys: ApiKeyDto[];
  /** Pass back to get the next page; null on the last one. */
  nextCursor: string | null;
  /**
   * false when the service ignored paging (a service that does not page): `keys` is then the
   * whole filtered list and nextCursor is null.
   */
  paged: boolean;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

interface RawAnswer {
  status: number;
  text: string;
  contentType: string;
  retryAfterMs: number | undefined;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: URLSearchParams;
  headers?: Record<string, string>;
  /** This request's timeout instead of the client's (e.g. a sync run that answers when done). */
  timeoutMs?: number;
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
function retryAfterMsOf(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function keyQueryParams(query: KeyQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.enabled !== undefined) params.set("enabled", String(query.enabled));
  if (query.name !== undefined) params.set("name", query.name);
  if (query.nameContains !== undefined && query.nameContains.trim() !== "")
    params.set("nameContains", query.nameContains.trim());
  if (query.permission !== undefined) params.set("permission", query.permission);
  if (query.state !== undefined) params.set("state", query.state);
  if (query.unusedForDays !== undefined) params.set("unusedForDays", String(query.unusedForDays));
  return params;
}

/** A 400 of a Keydesk service naming include: an older one, or one that records no usage. */
function refusesInclude(error: unknown): boolean {
  return (
    error instanceof ServiceCallFailure &&
    error.status === 400 &&
    error.validationErrors?.include !== undefined
  );
}

/**
 * Whether a call was refused because the service has no such route (another service, or an older
 * Keydesk without this extension): a 405, or a 404 that names no field of the request. A Keydesk
 * route's own 404 names the part that names nothing (accountKey, key): an account these
 * credentials do not manage is an error to show, not a missing feature.
 */
function isMissingRoute(error: unknown): boolean {
  if (!(error instanceof ServiceCallFailure)) return false;
  if (error.status === 405) return true;
  return error.status === 404 && (error.messageId !== "NOT_FOUND" || error.validationErrors === undefined);
}

/**
 * The query as a predicate: what a service that ignores Keydesk's filters answered is narrowed here.
 * @internal Exported for tests.
 */
export function matchesKeyQuery(query: KeyQuery, now = Date.now()): (key: ApiKeyDto) => boolean {
  const needle = query.nameContains?.trim().toLowerCase() ?? "";
  const { state } = query;
  return (key) =>
    (state === undefined || matchesStateFilter(validityOf(key), state, now)) &&
    (query.enabled === undefined || key.enabled === query.enabled) &&
    (query.name === undefined || key.name === query.name.trim()) &&
    (needle === "" || key.name.toLowerCase().includes(needle)) &&
    (query.permission === undefined || key.permissions.includes(query.permission));
}

const keysPath = (accountKey: string) => servicePath(SERVICE_ROUTES.apiKeys, { accountKey });
const keyPath = (accountKey: string, key: string) => servicePath(SERVICE_ROUTES.apiKey, { accountKey, key });

/** What the PIN stream tells: a message captured, or a PIN's state changed by a verification. */
export type PinStreamEvent =
  | { type: "captured"; pin: CapturedPinDto }
  | { type: "state"; state: PinStateDto };

export class KeyServiceClient {
  readonly baseUrl: string;
  readonly username: string;
  readonly #authorization: string;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #maxAnswerBytes: number;
  readonly #clientKind: KeydeskClientKind | undefined;
  /** include= values the service refused (a 400 naming include): not asked for again. */
  readonly #refusedIncludes = new Set<KeyInclude>();

  constructor(options: KeyServiceClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.username = options.username;
    this.#authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`, "utf8").toString("base64")}`;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#signal = options.signal;
    this.#maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.#clientKind = options.clientKind;
  }

  // ---- keys ----------------------------------------------------------------------------

  async list(accountKey: string, filter: KeyListFilter = {}): Promise<ApiKeyDto[]> {
    const query = new URLSearchParams();
    if (filter.enabled !== undefined) query.set("enabled", String(filter.enabled));
    if (filter.name !== undefined) query.set("name", filter.name);
    const { apiKeys: keys } = await this.#json(keysPath(accountKey), apiKeyListSchema, { query });
    const { permission } = filter;
    return permission === undefined ? keys : keys.filter((key) => key.permissions.includes(permission));
  }

  /**
   * One page of an account's keys in creation order, `limit` at most (1–10,000), after `cursor`
   * (a nextCursor of an earlier page of the same query).
   */
  async listPage(
    accountKey: string,
    query: KeyQuery,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<KeyPage> {
    const params = keyQueryParams(query);
    params.set("limit", String(page.limit));
    if (page.cursor !== undefined) params.set("cursor", page.cursor);
    if (query.sort !== undefined) {
      params.set("sort", query.sort.by);
      params.set("order", query.sort.desc ? "desc" : "asc");
    }
    const answer = await this.#withInclude(query.include, (include) => {
      const asked = new URLSearchParams(params);
      if (include !== "") asked.set("include", include);
      return this.#json(keysPath(accountKey), apiKeyPageSchema, { query: asked });
    });
    const keys = answer.apiKeys;
    const usageAsked = query.include?.includes("usage") === true;
    const withoutUsage = (key: ApiKeyWithExtrasDto) => key.usage === undefined;
    if (query.unusedForDays !== undefined && usageAsked && keys.some(withoutUsage)) {
      // A service that ignored the filter: its keys say nothing about their use either.
      throw new ServiceCallFailure("INVALID_ARGUMENT", USAGE_NOT_REPORTED, {
        unusedForDays: [USAGE_NOT_REPORTED],
      });
    }
    if (answer.nextCursor !== undefined) {
      return { keys: keys.filter(matchesKeyQuery(query)), nextCursor: answer.nextCursor, paged: true };
    }
    // A service that does not page does not sort either: its whole list is ordered here.
    const matching = keys.filter(matchesKeyQuery(query));
    return {
      keys: query.sort ? sortApiKeys(matching, query.sort) : matching,
      nextCursor: null,
      paged: false,
    };
  }

  /**
   * How many keys of the account the query matches (a Keydesk service's
   * `/local/1/accounts/{accountKey}/api-keys/count`); null when the service has no such route.
   */
  async countKeys(accountKey: string, query: KeyQuery = {}): Promise<number | null> {
    try {
      const answer = await this.#json(
        servicePath(SERVICE_ROUTES.apiKeyCount, { accountKey }),
        apiKeyCountSchema,
        { query: keyQueryParams(query) },
      );
      return answer.count;
    } catch (error) {
      if (isMissingRoute(error)) return null;
      throw error;
    }
  }

  /**
   * The newest audit entries of a key (a Keydesk service's `/local/1/audit`); null when the
   * service has no such route (another service, or an older Keydesk: it keeps no history).
   */
  async keyHistory(key: string, limit: number): Promise<AuditPageDto | null> {
    try {
      return await this.#json(SERVICE_ROUTES.localAudit, auditAnswerSchemas(false).auditPage, {
        query: new URLSearchParams({ key, limit: String(limit) }),
      });
    } catch (error) {
      if (isMissingRoute(error)) return null;
      throw error;
    }
  }

  /**
   * The key's calls per hour and per UTC day (a Keydesk service's
   * `/local/1/accounts/{accountKey}/api-keys/{key}/usage-series`); null when the service records
   * none: no such route (another service, an older Keydesk) or a 400 naming usage (--usage off).
   */
  async usageSeries(accountKey: string, key: string): Promise<KeyUsageSeriesDto | null> {
    try {
      return await this.#json(
        servicePath(SERVICE_ROUTES.apiKeyUsageSeries, { accountKey, key }),
        keyUsageSeriesSchema,
      );
    } catch (error) {
      if (isMissingRoute(error)) return null;
      if (
        error instanceof ServiceCallFailure &&
        error.status === 400 &&
        error.validationErrors?.usage !== undefined
      )
        return null;
      throw error;
    }
  }

  /** The key; with `include`, our own service's extras too (absent where the service has none). */
  async get(accountKey: string, key: string, include?: readonly KeyInclude[]): Promise<ApiKeyWithExtrasDto> {
    return await this.#withInclude(include, (asked) =>
      this.#json(
        keyPath(accountKey, key),
        apiKeySchema,
        asked === "" ? {} : { query: new URLSearchParams({ include: asked }) },
      ),
    );
  }

  /**
   * Runs a request with the include= values the service has not refused; when it refuses them (a
   * 400 naming include: an older Keydesk, one with --usage off), once more without usage, then
   * without any, remembering what was refused so that later requests do not ask again.
   */
  async #withInclude<T>(include: readonly KeyInclude[] | undefined, send: (include: string) => Promise<T>) {
    for (;;) {
      const asked = (include ?? []).filter((value) => !this.#refusedIncludes.has(value));
      try {
        return await send(asked.join(","));
      } catch (error) {
        if (asked.length === 0 || !refusesInclude(error)) throw error;
        this.#refusedIncludes.add(asked.includes("usage") ? "usage" : (asked[0] as KeyInclude));
      }
    }
  }

  /** The key with this publicApiKey, or null. */
  /** The key with this publicApiKey; with `include`, our own service's extras too. */
  async lookup(
    accountKey: string,
    publicApiKey: string,
    include?: readonly KeyInclude[],
  ): Promise<ApiKeyDto | null> {
    const { apiKeys } = await this.#withInclude(include, (asked) => {
      const query = new URLSearchParams({ publicApiKey });
      if (asked !== "") query.set("include", asked);
      return this.#json(keysPath(accountKey), apiKeyListSchema, { query });
    });
    return apiKeys[0] ?? null;
  }

  async create(
    accountKey: string,
    request: CreateApiKeyRequest,
    options: KeyWriteOptions = {},
  ): Promise<ApiKeyDto> {
    return await this.#json(keysPath(accountKey), apiKeySchema, {
      method: "POST",
      body: request,
      headers: writeHeaders(options),
    });
  }

  async update(
    accountKey: string,
    key: string,
    request: UpdateApiKeyRequest,
    options: Omit<KeyWriteOptions, "idempotencyKey"> = {},
  ): Promise<ApiKeyDto> {
    return await this.#json(keyPath(accountKey, key), apiKeySchema, {
      method: "PUT",
      body: request,
      headers: writeHeaders(options),
    });
  }

  setEnabled(accountKey: string, key: string, enabled: boolean): Promise<ApiKeyDto> {
    return this.update(accountKey, key, { enabled });
  }

  // ---- accounts and PINs -------------------------------------------------------------------

  /**
   * The credentials' own account and its sub-accounts (`/local/1/accounts`, a Keydesk key
   * service route). A remote without that route (404) gets the own account only, as accountKey
   * `_` (the API's name for "the credentials' own account") with the profile's username.
   */
  async accounts(): Promise<AccountDto[]> {
    try {
      return (await this.#json(SERVICE_ROUTES.localAccounts, accountListSchema)).accounts;
    } catch (error) {
      if (error instanceof ServiceCallFailure && error.status === 404) {
        return [{ accountKey: "_", username: this.username, parentAccountKey: null }];
      }
      throw error;
    }
  }

  async pins(
    filter: { to?: string | undefined; applicationId?: string | undefined } = {},
  ): Promise<CapturedPinDto[]> {
    const query = new URLSearchParams();
    if (filter.to !== undefined) query.set("to", filter.to);
    if (filter.applicationId !== undefined) query.set("applicationId", filter.applicationId);
    return (await this.#json(SERVICE_ROUTES.localPins, capturedPinListSchema, { query })).pins;
  }

  /**
   * Follows `/local/1/pins/stream` and calls `onEvent` for every captured PIN and every PIN whose
   * state a verification changed; reconnects after `retryMs` when the stream ends or fails.
   * Returns the function that stops it.
   */
  streamPins(onEvent: (event: PinStreamEvent) => void, retryMs = 2_000): () => void {
    const controller = new AbortController();
    let retry: NodeJS.Timeout | undefined;
    const connect = async () => {
      try {
        const response = await fetch(`${this.baseUrl}${SERVICE_ROUTES.localPinsStream}`, {
          headers: {
            authorization: this.#authorization,
            accept: "text/event-stream",
            ...(this.#clientKind !== undefined && { [CLIENT_HEADER]: this.#clientKind }),
          },
          signal: controller.signal,
        });
        if (response.ok && response.body) await readEvents(response.body, onEvent);
        else await response.body?.cancel();
      } catch {
        // Reconnected below unless stopped.
      }
      if (!controller.signal.aborted) {
        retry = setTimeout(connect, retryMs);
        retry.unref();
      }
    };
    void connect();
    return () => {
      clearTimeout(retry);
      controller.abort();
    };
  }

  // ---- connection test ---------------------------------------------------------------------

  /** Reachable? Credentials accepted? Which account? Never throws. */
  async testConnection(): Promise<ConnectionVerdict> {
    try {
      const accounts = await this.accounts();
      const own = accounts[0];
      if (own && own.accountKey !== "_") {
        return {
          reachable: true,
          credentialsAccepted: true,
          accountKey: own.accountKey,
          text: `Connected to ${this.baseUrl} as ${own.username} (account ${own.accountKey}).`,
        };
      }
      // No account route on this service: a key lookup tells whether the credentials work.
      await this.lookup("_", "keydesk-connection-test");
      return {
        reachable: true,
        credentialsAccepted: true,
        text: `Connected to ${this.baseUrl} as ${this.username}; this service does not say which account that is.`,
      };
    } catch (error) {
      if (!(error instanceof ServiceCallFailure)) throw error;
      const { messageId, text } = error;
      if (messageId === "UNREACHABLE") return { reachable: false, credentialsAccepted: false, text };
      if (messageId === "UNAUTHORIZED") {
        return {
          reachable: true,
          credentialsAccepted: false,
          text: `${this.baseUrl} refused the username or password: ${text}`,
        };
      }
      if (messageId === "TOO_MANY_REQUESTS") {
        return {
          reachable: true,
          credentialsAccepted: false,
          text: `${this.baseUrl} refuses sign-ins from this computer for now after too many failures; try again later.`,
        };
      }
      return { reachable: true, credentialsAccepted: false, text };
    }
  }

  // ---- other routes of the same service ---------------------------------------------------

  /**
   * Any JSON route of this service through the same transport and checks (electron/client/syncClient.ts
   * builds on it): the answer must match `schema`; failures are thrown as ServiceCallFailure like above.
   */
  requestJson<S extends z.ZodType>(
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.output<S>> {
    return this.#json(path, schema, options);
  }

  /** A route answered without a body (204): resolves on any 2xx, throws like requestJson otherwise. */
  async requestNoContent(path: string, options: RequestOptions = {}): Promise<void> {
    await this.#json(path, null, options);
  }

  // ---- transport -------------------------------------------------------------------------

  async #json<S extends z.ZodType>(
    path: string,
    schema: S | null,
    options: RequestOptions = {},
  ): Promise<z.output<S>> {
    const answer = await this.#send(path, options);
    const url = `${this.baseUrl}${path}`;
    let parsed: unknown;
    let isJson = /^application\/([a-z.+-]*\+)?json\b/i.test(answer.contentType);
    if (isJson) {
      try {
        parsed = JSON.parse(answer.text);
      } catch {
        isJson = false;
      }
    }
    if (answer.status >= 400) {
      const error = isJson ? errorBodySchema.safeParse(parsed) : undefined;
      if (error?.success) {
        const { messageId, text, validationErrors } = error.data.requestError.serviceException;
        throw new ServiceCallFailure(messageId, text, validationErrors, answer.status, answer.retryAfterMs);
      }
      throw new ServiceCallFailure(
        "GENERAL_ERROR",
        `${url} answered HTTP ${answer.status} with something that is not the key-management API's error body; check the base URL`,
        undefined,
        answer.status,
        answer.retryAfterMs,
      );
    }
    if (schema === null && answer.status >= 200 && answer.status < 300) return undefined as z.output<S>;
    const result = isJson && schema !== null ? schema.safeParse(parsed) : undefined;
    if (!result?.success) {
      throw new ServiceCallFailure(
        "GENERAL_ERROR",
        `${url} answered something that is not the key-management API (HTTP ${answer.status}, ${answer.contentType || "no content type"}); check the base URL`,
        undefined,
        answer.status,
      );
    }
    return result.data;
  }

  async #send(path: string, options: RequestOptions): Promise<RawAnswer> {
    const query = options.query?.toString();
    const url = `${this.baseUrl}${path}${query ? `?${query}` : ""}`;
    const headers: Record<string, string> = {
      ...options.headers,
      authorization: this.#authorization,
      accept: "application/json",
    };
    if (this.#clientKind !== undefined) headers[CLIENT_HEADER] = this.#clientKind;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    try {
      const response = await fetch(url, {
        method: options.method ?? "GET",
        headers,
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        redirect: "manual",
        signal: this.#signal
          ? AbortSignal.any([this.#signal, AbortSignal.timeout(options.timeoutMs ?? this.#timeoutMs)])
          : AbortSignal.timeout(options.timeoutMs ?? this.#timeoutMs),
      });
      return {
        status: response.status,
        text: await readBoundedText(response, this.#maxAnswerBytes),
        contentType: response.headers.get("content-type") ?? "",
        retryAfterMs: retryAfterMsOf(response.headers.get("retry-after")),
      };
    } catch (error) {
      if (error instanceof AnswerTooLarge) {
        throw new ServiceCallFailure(
          "GENERAL_ERROR",
          `the remote's answer is larger than ${formatBytes(error.limitBytes)}; the request to ${this.baseUrl}${path} was aborted (is this the key-management API? a service may raise the limit with --sync-max-answer-mb)`,
        );
      }
      throw new ServiceCallFailure(
        "UNREACHABLE",
        unreachableText(`${this.baseUrl}${path}`, error, options.timeoutMs ?? this.#timeoutMs),
      );
    }
  }
}

function unreachableText(url: string, error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return `${url} timed out (did not answer within ${Math.round(timeoutMs / 1000)} s)`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `could not reach ${url} (${reason}); check the address and that the service is running`;
}

/** Reads a server-sent event stream and hands every `pin` event's data to `onPin`. */
/** Reads the PIN stream's events; a malformed or unknown one is skipped. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: PinStreamEvent) => void,
): Promise<void> {
  const parser = createParser({
    onEvent(message) {
      const event = pinStreamEventOf(message.event, message.data);
      if (event) onEvent(event);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
}

function pinStreamEventOf(name: string | undefined, data: string): PinStreamEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (name === PIN_STREAM_EVENTS.captured) {
    const pin = capturedPinSchema.safeParse(json);
    return pin.success ? { type: "captured", pin: pin.data } : undefined;
  }
  if (name === PIN_STREAM_EVENTS.state) {
    const state = pinStateSchema.safeParse(json);
    return state.success ? { type: "state", state: state.data } : undefined;
  }
  return undefined;
}
