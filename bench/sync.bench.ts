import { performance } from "node:perf_hooks";
import { addAccount } from "../electron/service/accountAdmin.ts";
import { openDataDir } from "../electron/service/dataDir.ts";
import { fieldsForCreate } from "../electron/service/domain/apiKeyRecords.ts";
import { newKeyId, newPublicApiKey } from "../electron/service/domain/identifiers.ts";
import type { SyncLinkDto } from "../shared/sync.ts";
import {
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../test/harness/keyServiceProcess.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { metric } from "./lib/metrics.ts";
import { median } from "./lib/stats.ts";
import { BenchFailure } from "./lib/timedHttp.ts";

/**
 * Sync between two real `key-service serve` processes on loopback: a remote whose account holds
 * 10,000 keys (seeded through its stores), and a fresh local side each round.
 * - pull: from "link + sync now" to the run's answer, all 10,000 keys mirrored;
 * - push: 1,000 local updates (each key renamed) queued while the link is paused, then from
 *   "resume + sync now" to the run's answer with the outbox empty.
 */

const REMOTE_KEYS = 10_000;
const QUEUED_CHANGES = 1_000;
const ROUNDS = 3;
const PASSWORD = "bench-sync-password-0123";

async function call<T>(
  server: ServeProcess,
  user: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await request(server.url, {
    method,
    path,
    authorization: basic(user, PASSWORD),
    ...(body !== undefined && { body }),
  });
  if (res.status >= 300) throw new BenchFailure(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.json as T;
}

async function seedRemote(dataDir: string): Promise<void> {
  const data = openDataDir({ dataDir });
  try {
    const account = await addAccount(data.store, { username: "team", password: PASSWORD });
    const now = Date.now();
    data.db.transaction(() => {
      for (let index = 0; index < REMOTE_KEYS; index++) {
        const fields = fieldsForCreate({
          name: `remote key ${index}`,
          ...(index % 4 === 0 && { allowedIPs: ["10.0.0.0/8"], validTo: "2035-01-01T00:00:00.000+0000" }),
        });
        if (!fields.ok) throw new BenchFailure("seed fields rejected");
        const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
        data.apiKeys.insert(account.id, account.accountKey, identity, fields.value, now + index);
      }
    })();
  } finally {
    data.close();
  }
}

async function oneRound(
  remote: ServeProcess,
  log: (line: string) => void,
): Promise<{ pullMs: number; pushMs: number }> {
  const dataDir = await makeTempDir("keydesk-bench-sync-local-");
  let local: ServeProcess | undefined;
  try {
    const data = openDataDir({ dataDir });
    await addAccount(data.store, { username: "owner", password: PASSWORD }).finally(() => data.close());
    local = await startServe({ dataDir });

    const pullStart = performance.now();
    const link = await call<SyncLinkDto>(local, "owner", "POST", "/local/1/sync/links", {
      accountKey: "_",
      remote: { baseUrl: remote.url, username: "team", password: PASSWORD },
      intervalSeconds: 3600,
    });
    const pulled = await call<SyncLinkDto>(local, "owner", "POST", `/local/1/sync/links/${link.id}/run`);
    const pullMs = performance.now() - pullStart;
    if (pulled.linkedKeys !== REMOTE_KEYS || pulled.lastError) {
      throw new BenchFailure(`pull mirrored ${pulled.linkedKeys} keys (${pulled.lastError ?? "no error"})`);
    }

    await call(local, "owner", "PUT", `/local/1/sync/links/${link.id}`, { paused: true });
    const { apiKeys } = await call<{ apiKeys: { key: string; name: string }[] }>(
      local,
      "owner",
      "GET",
      "/settings/1/accounts/_/api-keys",
    );
    const targets = apiKeys.slice(0, QUEUED_CHANGES);
    let next = 0;
    const worker = async () => {
      while (next < targets.length) {
        const key = targets[next++] as { key: string; name: string };
        await call(local as ServeProcess, "owner", "PUT", `/settings/1/accounts/_/api-keys/${key.key}`, {
          name: `${key.name} (renamed locally)`,
        });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const queued = await call<SyncLinkDto>(local, "owner", "GET", `/local/1/sync/links/${link.id}`);
    if (queued.pending !== QUEUED_CHANGES)
      throw new BenchFailure(`${queued.pending} changes queued, not ${QUEUED_CHANGES}`);

    const pushStart = performance.now();
    await call(local, "owner", "PUT", `/local/1/sync/links/${link.id}`, { paused: false });
    const pushed = await call<SyncLinkDto>(local, "owner", "POST", `/local/1/sync/links/${link.id}/run`);
    const pushMs = performance.now() - pushStart;
    if (pushed.pending !== 0 || pushed.lastError) {
      throw new BenchFailure(`push left ${pushed.pending} changes (${pushed.lastError ?? "no error"})`);
    }
    log(
      `sync round: pull ${REMOTE_KEYS} keys ${pullMs.toFixed(0)} ms, push ${QUEUED_CHANGES} changes ${pushMs.toFixed(0)} ms`,
    );
    return { pullMs, pushMs };
  } finally {
    await local?.stop("SIGTERM");
    await removeDir(dataDir);
  }
}

export const syncBenchmark: Benchmark = {
  name: "sync",
  description: `pull of ${REMOTE_KEYS} keys and push of ${QUEUED_CHANGES} queued changes between two serve processes`,
  async run({ log }) {
    const remoteDir = await makeTempDir("keydesk-bench-sync-remote-");
    let remote: ServeProcess | undefined;
    try {
      await seedRemote(remoteDir);
      remote = await startServe({ dataDir: remoteDir });
      const rounds: { pullMs: number; pushMs: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        rounds.push(await oneRound(remote, log));
        // Each round renamed keys on the remote; the next round's pull mirrors them as they are now.
      }
      return [
        metric(
          "sync",
          `pull ${REMOTE_KEYS} keys (median of ${ROUNDS})`,
          median(rounds.map((r) => r.pullMs)),
          "ms",
          {
            below: 5000,
          },
        ),
        metric(
          "sync",
          `push ${QUEUED_CHANGES} queued changes (median of ${ROUNDS})`,
          median(rounds.map((r) => r.pushMs)),
          "ms",
          { below: 5000 },
        ),
      ];
    } finally {
      await remote?.stop("SIGTERM");
      await removeDir(remoteDir);
    }
  },
};
