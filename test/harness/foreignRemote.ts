import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A minimal remote written from the spec alone (../shared/spec/api-key-management.md), not
 * from Keydesk's service: Basic auth, create/list/get/update with the list's `name`,
 * `publicApiKey` and `enabled` lookups, keys in memory. It knows nothing of Idempotency-Key,
 * answers errors in its own body shape, and lets a test inject failures.
 */

interface Key {
  name: string;
  key: string;
  publicApiKey: string;
  accountKey: string;
  allowedIPs?: string[];
  permissions: string[];
  validFrom?: string;
  validTo?: string;
  enabled: boolean;
}

export interface InjectedFailure {
  method: string;
  /** Matched against the path (without query). */
  path?: RegExp;
  status: number;
  headers?: Record<string, string>;
  /** How many matching requests fail; 1 by default. */
  times?: number;
}

export interface ForeignRemote {
  url: string;
  username: string;
  password: string;
  keys: Map<string, Key>;
  /** Requests received, as "METHOD path?query". */
  seen: string[];
  fail(failure: InjectedFailure): void;
  /** Keys left out of the unfiltered list (a list that lags behind), still found by `?name=`. */
  lagging: Set<string>;
  /** Unfiltered lists are answered this many ms late (a slow remote). */
  listDelayMs: number;
  /** Updates are answered this many ms late. */
  updateDelayMs: number;
  /** The next create is carried out, but its connection is cut before the answer. */
  loseNextCreateAnswer(): void;
  close(): Promise<void>;
}

// The spec leaves identifier formats open: this remote's are not Keydesk's 32 hex digits.
const ACCOUNT = `acct-${randomUUID()}`;
const CREATE_FIELDS = ["name", "allowedIPs", "permissions", "validFrom", "validTo"];
const UPDATE_FIELDS = [...CREATE_FIELDS, "enabled"];

export async function startForeignRemote(username = "foreign", password = "s3cret"): Promise<ForeignRemote> {
  const failures: (InjectedFailure & { left: number })[] = [];
  let loseCreate = false;
  const remote: ForeignRemote = {
    url: "",
    username,
    password,
    keys: new Map(),
    seen: [],
    lagging: new Set(),
    listDelayMs: 0,
    updateDelayMs: 0,
    fail: (failure) => failures.push({ ...failure, left: failure.times ?? 1 }),
    loseNextCreateAnswer: () => {
      loseCreate = true;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const apply = (target: Key, body: Record<string, unknown>, allowed: readonly string[]): string | null => {
    for (const [field, value] of Object.entries(body)) {
      if (!allowed.includes(field)) return `unknown field ${field}`;
      if (value === null) delete (target as unknown as Record<string, unknown>)[field];
      else (target as unknown as Record<string, unknown>)[field] = value;
    }
    return typeof target.name === "string" && target.name.length > 0 ? null : "name is required";
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://remote");
      const method = req.method ?? "GET";
      remote.seen.push(`${method} ${url.pathname}${url.search}`);
      const injected = failures.find(
        (failure) =>
          failure.left > 0 && failure.method === method && (!failure.path || failure.path.test(url.pathname)),
      );
      if (injected) {
        injected.left--;
        return send(res, injected.status, { error: `injected ${injected.status}` }, injected.headers);
      }
      const expected = `Basic ${Buffer.from(`${remote.username}:${remote.password}`).toString("base64")}`;
      if (req.headers.authorization !== expected) return send(res, 401, { error: "bad credentials" });
      const match = /^\/settings\/1\/accounts\/([^/]+)\/api-keys(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match || (match[1] !== "_" && match[1] !== ACCOUNT)) return send(res, 404, { error: "not found" });
      let body: Record<string, unknown> = {};
      try {
        if (chunks.length > 0) body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(res, 400, { error: "bad json" });
      }
      const id = match[2];
      if (id === undefined && method === "GET") {
        let list = [...remote.keys.values()];
        const name = url.searchParams.get("name");
        const publicApiKey = url.searchParams.get("publicApiKey");
        const enabled = url.searchParams.get("enabled");
        if (name !== null) list = list.filter((key) => key.name === name);
        else list = list.filter((key) => !remote.lagging.has(key.name));
        if (publicApiKey !== null) list = list.filter((key) => key.publicApiKey === publicApiKey);
        if (enabled !== null) list = list.filter((key) => String(key.enabled) === enabled);
        if (name === null && remote.listDelayMs > 0) {
          setTimeout(() => send(res, 200, { apiKeys: list }), remote.listDelayMs);
          return;
        }
        return send(res, 200, { apiKeys: list });
      }
      if (id === undefined && method === "POST") {
        const key: Key = {
          name: "",
          key: `key_${randomUUID()}`,
          publicApiKey: `${randomBytes(16).toString("hex")}-${randomUUID()}`,
          accountKey: ACCOUNT,
          permissions: ["ALL"],
          enabled: true,
        };
        const problem = apply(key, body, CREATE_FIELDS);
        if (problem) return send(res, 400, { error: problem });
        remote.keys.set(key.key, key);
        if (loseCreate) {
          loseCreate = false;
          req.socket.destroy();
          return;
        }
        return send(res, 200, key);
      }
      const key = id === undefined ? undefined : remote.keys.get(id);
      if (!key) return send(res, 404, { error: "no such key" });
      if (method === "GET") return send(res, 200, key);
      if (method === "PUT") {
        const updated = { ...key };
        const problem = apply(updated, body, UPDATE_FIELDS);
        if (problem) return send(res, 400, { error: problem });
        remote.keys.set(key.key, updated);
        if (remote.updateDelayMs > 0) {
          setTimeout(() => send(res, 200, updated), remote.updateDelayMs);
          return;
        }
        return send(res, 200, updated);
      }
      return send(res, 405, { error: "method not allowed" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  remote.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return remote;
}
