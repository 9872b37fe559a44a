import assert from "node:assert/strict";
import type { SyncKeyDto, SyncLinkDto, SyncOutboxEntryDto } from "../../../shared/sync.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import type { ApiKey } from "../service/serviceFixture.ts";

/**
 * Sync tests run two real `key-service serve` processes on loopback: "local" (the side with
 * the link, as the desktop's embedded service) and "remote" (a team server). Each keeps its
 * data dir across restarts, so a test can stop, kill -9 and start either side again.
 */

export const PASSWORD = "correct horse battery";

export class Side {
  readonly name: string;
  readonly dataDir: string;
  readonly username: string;
  process: ServeProcess | undefined;
  #port = 0;

  constructor(name: string, dataDir: string, username: string) {
    this.name = name;
    this.dataDir = dataDir;
    this.username = username;
  }

  get url(): string {
    assert.ok(this.process, `${this.name} is not running`);
    return this.process.url;
  }

  /** The port it listened on first; restarts listen there again, so links keep working. */
  get port(): number {
    return this.#port;
  }

  async start(): Promise<void> {
    this.process = await startServe({
      dataDir: this.dataDir,
      args: this.#port ? ["--port", String(this.#port)] : [],
    });
    this.#port = this.process.port;
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const running = this.process;
    this.process = undefined;
    await running?.stop(signal);
  }

  async call<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const res = await request(this.url, {
      method,
      path,
      authorization: basic(this.username, PASSWORD),
      ...(body !== undefined && { body }),
      ...(headers && { headers }),
    });
    return { status: res.status, json: res.json as T, text: res.text };
  }

  async ok<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.call<T>(method, path, body);
    assert.ok(
      res.status >= 200 && res.status < 300,
      `${this.name} ${method} ${path} → ${res.status} ${res.text}`,
    );
    return res.json;
  }

  keys(): Promise<ApiKey[]> {
    return this.ok<{ apiKeys: ApiKey[] }>("GET", "/settings/1/accounts/_/api-keys").then(
      (list) => list.apiKeys,
    );
  }

  createKey(body: Record<string, unknown>): Promise<ApiKey> {
    return this.ok<ApiKey>("POST", "/settings/1/accounts/_/api-keys", body);
  }

  updateKey(key: string, body: Record<string, unknown>): Promise<ApiKey> {
    return this.ok<ApiKey>("PUT", `/settings/1/accounts/_/api-keys/${key}`, body);
  }

  /** Creates `count` keys, 16 requests at a time. */
  async createKeys(count: number, name = (i: number) => `key ${i}`): Promise<ApiKey[]> {
    const created: ApiKey[] = new Array(count);
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const index = next++;
        created[index] = await this.createKey({ name: name(index) });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return created;
  }
}

export interface SyncPair {
  local: Side;
  remote: Side;
  close(): Promise<void>;
}

/** Two fresh services, each with one account, both running. */
export async function startPair(): Promise<SyncPair> {
  const local = new Side("local", await makeTempDir("keydesk-sync-local-"), "owner");
  const remote = new Side("remote", await makeTempDir("keydesk-sync-remote-"), "team");
  await Promise.all([
    addAccount(local.dataDir, local.username, PASSWORD),
    addAccount(remote.dataDir, remote.username, PASSWORD),
  ]);
  await Promise.all([local.start(), remote.start()]);
  return {
    local,
    remote,
    async close() {
      await Promise.all([local.stop(), remote.stop()]);
      await Promise.all([removeDir(local.dataDir), removeDir(remote.dataDir)]);
    },
  };
}

/** Links the local side's own account to `remoteUrl` (the remote side's own account by default). */
export function link(
  local: Side,
  remoteUrl: string,
  options: { username?: string; password?: string; intervalSeconds?: number; check?: boolean } = {},
): Promise<SyncLinkDto> {
  return local.ok<SyncLinkDto>("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: {
      baseUrl: remoteUrl,
      username: options.username ?? "team",
      password: options.password ?? PASSWORD,
    },
    intervalSeconds: options.intervalSeconds ?? 3600,
    ...(options.check !== undefined && { check: options.check }),
  });
}

export const runLink = (local: Side, id: number) =>
  local.ok<SyncLinkDto>("POST", `/local/1/sync/links/${id}/run`);
export const linkState = (local: Side, id: number) =>
  local.ok<SyncLinkDto>("GET", `/local/1/sync/links/${id}`);
export const syncKeys = (local: Side, id: number) =>
  local.ok<{ keys: SyncKeyDto[] }>("GET", `/local/1/sync/links/${id}/keys`).then((list) => list.keys);
export const outbox = (local: Side, id: number) =>
  local
    .ok<{ entries: SyncOutboxEntryDto[] }>("GET", `/local/1/sync/links/${id}/outbox`)
    .then((list) => list.entries);

export { eventually } from "../../harness/eventually.ts";

/** The fields both sides must agree on, without the ids that differ between them. */
export const comparable = (key: ApiKey) => {
  const { key: _key, accountKey: _accountKey, ...rest } = key;
  return rest;
};

export const byName = (keys: readonly ApiKey[]) => new Map(keys.map((key) => [key.name, key]));
