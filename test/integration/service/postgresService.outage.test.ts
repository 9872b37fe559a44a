import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { request, type ServeProcess, TEST_STORE } from "../../harness/keyServiceProcess.ts";
import {
  type PrivateCluster,
  postgresMissing,
  skipWithoutPostgres,
  startPostgres,
} from "../../harness/postgres.ts";
import { REPLICA_OWNER, startReplicas } from "../../harness/postgresReplicas.ts";

/**
 * Two `serve` replicas on one PostgreSQL cluster, under a bounded mixed load (creates, renames,
 * App-authorized calls), while the database fails three ways: an immediate restart, every backend
 * of one replica terminated, and the cluster stopped for 5 s. Both replicas stay up, every answer
 * is a success or a 503, both are ready again within 2 s of the database's return, and every
 * acknowledged create and rename is in the database afterwards, read directly.
 *
 * Part of `npm run test:postgres` (its own cluster, which it stops and starts).
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const OWNER = REPLICA_OWNER;
const READY = "/local/1/health/ready";
/** How soon after the database accepts connections again both replicas must answer ready. */
const RECOVERY_MS = 2_000;
/** Requests in flight per replica. */
const WORKERS = 3;

const onlyInPostgresSuite =
  TEST_STORE !== "postgres" && "runs in npm run test:postgres (KEYDESK_TEST_STORE=postgres)";

let cluster: PrivateCluster | undefined;

before(async () => {
  if (!onlyInPostgresSuite && !postgresMissing) cluster = await startPostgres({ durable: true });
});
after(() => cluster?.stop());

interface Acknowledged {
  /** Key id → the name of its last acknowledged create or rename. */
  names: Map<string, string>;
  /** Key id → names sent after the last acknowledged one whose answer was a 503 (they may have committed). */
  unsure: Map<string, Set<string>>;
  answers: Map<string, number>;
  /** Requests that got no HTTP answer at all (a replica down) or an answer other than 200/503. */
  wrong: string[];
}

/** One worker: creates a key, renames it a few times, calls with it, over and over until `stop`. */
async function worker(
  replica: ServeProcess,
  label: string,
  appKey: string,
  acks: Acknowledged,
  stop: () => boolean,
) {
  let serial = 0;
  const count = (what: string, status: number) =>
    acks.answers.set(`${what} ${status}`, (acks.answers.get(`${what} ${status}`) ?? 0) + 1);
  const call = async (what: string, options: Parameters<typeof request>[1]) => {
    try {
      const answer = await request(replica.url, options);
      count(what, answer.status);
      if (answer.status !== 200 && answer.status !== 503)
        acks.wrong.push(`${what}: ${answer.status} ${answer.text}`);
      if (answer.status === 503 && !/"messageId":"SERVICE_UNAVAILABLE"/.test(answer.text))
        acks.wrong.push(`${what}: a 503 that is not SERVICE_UNAVAILABLE: ${answer.text}`);
      return answer;
    } catch (error) {
      acks.wrong.push(`${what}: no answer (${(error as Error).message})`);
      return undefined;
    }
  };
  let key: string | undefined;
  while (!stop()) {
    serial++;
    const name = `${label}-${serial}`;
    if (key === undefined || serial % 4 === 0) {
      const created = await call("create", {
        method: "POST",
        path: KEYS,
        authorization: OWNER,
        body: { name, permissions: ["ALL"] },
      });
      if (created?.status === 200) {
        key = (created.json as { key: string }).key;
        acks.names.set(key, name);
      }
    } else {
      const renamed = await call("rename", {
        method: "PUT",
        path: `${KEYS}/${key}`,
        authorization: OWNER,
        body: { name },
      });
      if (renamed?.status === 200) {
        acks.names.set(key, name);
        acks.unsure.delete(key);
      } else if (renamed?.status === 503) {
        const unsure = acks.unsure.get(key) ?? new Set();
        acks.unsure.set(key, unsure.add(name));
      }
    }
    await call("app call", { path: "/2fa/2/applications", authorization: `App ${appKey}` });
    await call("list", { path: `${KEYS}?limit=5`, authorization: OWNER });
  }
}

/** Polls both replicas' readiness until each answers 200; answers the milliseconds that took. */
async function untilBothReady(replicas: ServeProcess[]): Promise<number> {
  const started = performance.now();
  await Promise.all(
    replicas.map(async (replica) => {
      for (;;) {
        assertUp([replica]);
        const ready = await request(replica.url, { path: READY }).catch(() => undefined);
        if (ready?.status === 200) return;
        if (performance.now() - started > 30_000)
          assert.fail(`${replica.url} not ready 30 s after the database returned`);
        await sleep(25);
      }
    }),
  );
  return performance.now() - started;
}

function assertUp(replicas: ServeProcess[]) {
  for (const replica of replicas) {
    assert.equal(replica.child.exitCode, null, `a replica exited: ${replica.stderr()}`);
    assert.equal(replica.child.signalCode, null, `a replica was killed: ${replica.stderr()}`);
  }
}

test("two replicas under load survive an immediate restart, terminated backends and a 5 s stop of PostgreSQL, losing nothing acknowledged", {
  skip: onlyInPostgresSuite,
  timeout: 180_000,
}, async (t) => {
  if (skipWithoutPostgres(t)) return;
  const own = cluster as PrivateCluster;
  const started = await startReplicas(own, ["keydesk-replica-a", "keydesk-replica-b"]);
  t.after(() => started.stop());
  const { url, replicas } = started;
  const [a] = replicas as [ServeProcess];
  const appKey = await request(a.url, {
    method: "POST",
    path: KEYS,
    authorization: OWNER,
    body: { name: "app", permissions: ["ALL"] },
  });
  assert.equal(appKey.status, 200, appKey.text);

  const acks: Acknowledged = { names: new Map(), unsure: new Map(), answers: new Map(), wrong: [] };
  let stopped = false;
  const load = replicas.flatMap((replica, r) =>
    Array.from({ length: WORKERS }, (_, w) =>
      worker(
        replica,
        `r${r}w${w}`,
        (appKey.json as { publicApiKey: string }).publicApiKey,
        acks,
        () => stopped,
      ),
    ),
  );
  const recoveries: Record<string, number> = {};
  try {
    await sleep(1_500);

    own.restart();
    recoveries["immediate restart"] = await untilBothReady(replicas);
    assertUp(replicas);
    await sleep(1_500);

    // Every connection of B (its pool's and its LISTEN connection) terminated at once.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'keydesk-replica-b'",
    );
    assert.ok(rows.length > 0, "B holds connections");
    await admin.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [
      rows.map((row) => row.pid),
    ]);
    await admin.end();
    recoveries["B's backends terminated"] = await untilBothReady(replicas);
    assertUp(replicas);
    await sleep(1_500);

    own.halt();
    await sleep(500);
    for (const replica of replicas) {
      const ready = await request(replica.url, { path: READY });
      assert.equal(ready.status, 503, `readiness while the database is down: ${ready.text}`);
    }
    await sleep(4_500);
    own.resume();
    recoveries["5 s stop"] = await untilBothReady(replicas);
    assertUp(replicas);
    await sleep(1_500);
  } finally {
    stopped = true;
    await Promise.all(load);
  }
  t.diagnostic(`recovery (ms): ${JSON.stringify(recoveries)}`);
  t.diagnostic(`answers: ${JSON.stringify(Object.fromEntries(acks.answers))}`);
  // What a failure below needs: each replica's logged request failures that are not the database's absence.
  for (const replica of replicas)
    t.diagnostic(
      replica
        .stderr()
        .split("\n")
        .filter((line) => /"level":50/.test(line) && !/ECONNREFUSED|57P01|Connection terminated/.test(line))
        .slice(-20)
        .join("\n"),
    );
  const reader = new pg.Client({ connectionString: url });
  await reader.connect();
  try {
    const { rows } = await reader.query<{ key: string; name: string }>(
      "SELECT key, name FROM api_keys WHERE key = ANY($1)",
      [[...acks.names.keys()]],
    );
    const stored = new Map(rows.map((row) => [row.key, row.name]));
    for (const [key, name] of acks.names) {
      assert.ok(stored.has(key), `acknowledged create of ${name} is in the database`);
      const allowed = new Set([name, ...(acks.unsure.get(key) ?? [])]);
      assert.ok(
        allowed.has(stored.get(key) as string),
        `${key} is named ${stored.get(key)}, acknowledged ${name}`,
      );
    }
  } finally {
    await reader.end();
  }
  assert.deepEqual(acks.wrong, [], "every answer is a success or a 503, and every request got one");
  for (const [outage, ms] of Object.entries(recoveries))
    assert.ok(ms < RECOVERY_MS, `ready ${Math.round(ms)} ms after the database's return (${outage})`);
  for (const what of ["create", "rename", "app call", "list"]) {
    assert.ok((acks.answers.get(`${what} 200`) ?? 0) > 0, `some ${what}s succeeded`);
  }
  assert.ok(
    (acks.answers.get("create 503") ?? 0) + (acks.answers.get("rename 503") ?? 0) > 0,
    "some writes met the outages",
  );
});
