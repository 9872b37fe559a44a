import assert from "node:assert/strict";
import {
  type ApiRequest,
  type ApiResponse,
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { checkAnswersOf } from "../../harness/serviceContract.ts";
import { startValidatingProxy, type ValidatingProxy } from "../../harness/validatingProxy.ts";

/**
 * A real `key-service serve` process on a temp data dir, with accounts made by the real CLI,
 * for the integration tests of the key-management API. Every answer that passes through `call`
 * is checked against the service's /openapi.json (by the harness's `request`), and one with status
 * >= 400 to have exactly the service's one error shape. Clients the tests do not drive through
 * `call` (the provider's SDK) reach it at `url`, a loopback proxy that checks every answer too.
 */

export interface AccountSpec {
  username: string;
  password: string;
  /** Username of the parent account. */
  parent?: string;
}

/** An API key as the service answers it (kept loose: the tests assert the exact shape). */
export type ApiKey = Record<string, unknown> & {
  name: string;
  key: string;
  publicApiKey: string;
  accountKey: string;
  permissions: string[];
  enabled: boolean;
  allowedIPs?: string[];
  validFrom?: string;
  validTo?: string;
};

export interface ServiceException {
  messageId: string;
  text: string;
  validationErrors?: Record<string, string[]>;
}

export const KEY_PATTERN = /^[0-9A-F]{32}$/;
export const PUBLIC_API_KEY_PATTERN =
  /^[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const API_DATETIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

/** Status of every messageId, as DESIGN.md fixes them. */
const STATUS_OF: Record<string, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  GENERAL_ERROR: 500,
};

/** Traces of internals that must never reach a client. */
const INTERNALS = [
  /\bat [^\s]+ \(/, // "at fn (file:line:col)" stack frames
  /^\s*at /m,
  /\.ts:\d+/,
  /node_modules/,
  /SQLITE/i,
  /\bSELECT\b|\bINSERT INTO\b|\bUPDATE api_keys\b/,
  /\bFST_[A-Z_]+/,
];

/** Checks that a body is exactly `{"requestError":{"serviceException":{messageId,text[,validationErrors]}}}`. */
export function assertErrorShape(res: ApiResponse): ServiceException {
  const where = `${res.status} ${res.text}`;
  assert.match(String(res.headers["content-type"]), /^application\/json\b/, where);
  const body = res.json as Record<string, unknown> | undefined;
  assert.ok(
    body && typeof body === "object" && !Array.isArray(body),
    `error body is not an object: ${where}`,
  );
  assert.deepEqual(Object.keys(body), ["requestError"], where);
  const requestError = body.requestError as Record<string, unknown>;
  assert.ok(requestError && typeof requestError === "object", where);
  assert.deepEqual(Object.keys(requestError), ["serviceException"], where);
  const exception = requestError.serviceException as Record<string, unknown>;
  assert.ok(exception && typeof exception === "object", where);
  const keys = Object.keys(exception);
  for (const key of keys) assert.ok(["messageId", "text", "validationErrors"].includes(key), where);
  assert.ok(keys.includes("messageId") && keys.includes("text"), where);
  assert.equal(typeof exception.messageId, "string", where);
  assert.equal(
    STATUS_OF[exception.messageId as string],
    res.status,
    `messageId does not fit status: ${where}`,
  );
  assert.equal(typeof exception.text, "string", where);
  assert.ok((exception.text as string).trim().length > 0, `empty text: ${where}`);
  if (exception.validationErrors !== undefined) {
    const errors = exception.validationErrors as Record<string, unknown>;
    assert.ok(errors && typeof errors === "object" && !Array.isArray(errors), where);
    assert.ok(Object.keys(errors).length > 0, `empty validationErrors: ${where}`);
    for (const messages of Object.values(errors)) {
      assert.ok(Array.isArray(messages) && messages.length > 0, where);
      for (const message of messages) assert.equal(typeof message, "string", where);
    }
  }
  for (const pattern of INTERNALS) assert.doesNotMatch(res.text, pattern, `internals leak: ${where}`);
  return exception as unknown as ServiceException;
}

/** Status, JSON content type, exactly the error shape, the messageId, and no internals. */
export function assertApiError(res: ApiResponse, status: number, messageId: string): ServiceException {
  assert.equal(res.status, status, `expected ${status} ${messageId}, got ${res.status} ${res.text}`);
  const exception = assertErrorShape(res);
  assert.equal(exception.messageId, messageId, res.text);
  return exception;
}

/** A 400 whose validationErrors name `field`; returns that field's messages. */
export function assertValidationError(res: ApiResponse, field: string): string[] {
  const exception = assertApiError(res, 400, "BAD_REQUEST");
  const messages = exception.validationErrors?.[field];
  assert.ok(messages && messages.length > 0, `validationErrors has no "${field}": ${res.text}`);
  return messages;
}

/** A 200 JSON answer; returns the parsed body. */
export function assertOk<T = unknown>(res: ApiResponse): T {
  assert.equal(res.status, 200, `expected 200, got ${res.status} ${res.text}`);
  assert.match(String(res.headers["content-type"]), /^application\/json\b/);
  return res.json as T;
}

export const keysPath = (accountKey = "_") => `/settings/1/accounts/${accountKey}/api-keys`;
export const keyPath = (key: string, accountKey = "_") => `${keysPath(accountKey)}/${key}`;

export interface Service {
  /**
   * Base URL for clients of their own (an SDK, an event-stream client): a loopback proxy to the
   * running process that replaces any answer not conforming to /openapi.json with a 502 naming
   * the difference. Stable across restarts. `serve.url` is the process itself.
   */
  readonly url: string;
  readonly dataDir: string;
  /** The running process (changes on restart). */
  readonly serve: ServeProcess;
  /** accountKey of each account by username. */
  accountKeys: Record<string, string>;
  /** The Basic Authorization header of an account made by the fixture. */
  auth(username: string): string;
  /** One request; any answer with status >= 400 must have exactly the error shape. */
  call(options: ApiRequest): Promise<ApiResponse>;
  /** Creates a key (200 asserted) and returns it. */
  createKey(username: string, body: unknown, accountKey?: string): Promise<ApiKey>;
  /** The account's keys as listed (200 asserted). */
  listKeys(username: string, query?: string, accountKey?: string): Promise<ApiKey[]>;
  getKey(username: string, key: string, accountKey?: string): Promise<ApiKey>;
  /** Stops the process with SIGTERM (exit 0 asserted) and starts a new one on the same data dir. */
  restart(): Promise<void>;
  /** Kills the process with SIGKILL (a crash) and starts it again on the same data dir. */
  crashAndRestart(): Promise<void>;
  /** Stops the process and removes the data dir. */
  close(): Promise<void>;
}

/** Makes the accounts with the CLI (in the order given), then starts `serve` (with `args`, at every start). */
export async function startService(accounts: AccountSpec[], args: string[] = []): Promise<Service> {
  const dataDir = await makeTempDir("keydesk-api-");
  const passwords: Record<string, string> = {};
  const accountKeys: Record<string, string> = {};
  let serve: ServeProcess;
  let proxy: ValidatingProxy;
  try {
    for (const account of accounts) {
      accountKeys[account.username] = await addAccount(
        dataDir,
        account.username,
        account.password,
        account.parent,
      );
      passwords[account.username] = account.password;
    }
    serve = await startServe({ dataDir, args });
  } catch (error) {
    await removeDir(dataDir);
    throw error;
  }
  let stopCheckingProxy: () => void;
  try {
    proxy = await startValidatingProxy(() => serve.url);
    // What the harness's own clients get through the proxy (event streams) is checked as well.
    stopCheckingProxy = await checkAnswersOf(proxy.url);
  } catch (error) {
    await serve.stop("SIGKILL");
    await removeDir(dataDir);
    throw error;
  }
  const auth = (username: string) => {
    const password = passwords[username];
    assert.ok(password !== undefined, `no account ${username} in this fixture`);
    return basic(username, password);
  };
  const call = async (options: ApiRequest) => {
    const res = await request(serve.url, options);
    if (res.status >= 400) assertErrorShape(res);
    return res;
  };
  const stop = async () => {
    const exit = await serve.stop("SIGTERM");
    assert.equal(exit.code, 0, `serve did not exit cleanly: ${serve.stderr()}`);
  };
  return {
    get url() {
      return proxy.url;
    },
    get serve() {
      return serve;
    },
    dataDir,
    accountKeys,
    auth,
    call,
    async createKey(username, body, accountKey = "_") {
      const res = await call({
        method: "POST",
        path: keysPath(accountKey),
        authorization: auth(username),
        body,
      });
      return assertOk<ApiKey>(res);
    },
    async listKeys(username, query = "", accountKey = "_") {
      const res = await call({ path: `${keysPath(accountKey)}${query}`, authorization: auth(username) });
      const body = assertOk<{ apiKeys: ApiKey[] }>(res);
      assert.deepEqual(Object.keys(body), ["apiKeys"]);
      assert.ok(Array.isArray(body.apiKeys));
      return body.apiKeys;
    },
    async getKey(username, key, accountKey = "_") {
      const res = await call({ path: keyPath(key, accountKey), authorization: auth(username) });
      return assertOk<ApiKey>(res);
    },
    async restart() {
      await stop();
      serve = await startServe({ dataDir, args });
    },
    async crashAndRestart() {
      await serve.stop("SIGKILL");
      serve = await startServe({ dataDir, args });
    },
    async close() {
      try {
        stopCheckingProxy();
        await proxy.close();
        await stop();
      } finally {
        await removeDir(dataDir);
      }
      assert.deepEqual(proxy.problems, [], "answers through the proxy that do not conform to /openapi.json");
    },
  };
}
