import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type DataDir, openDataDir } from "../../../electron/service/dataDir.ts";
import { buildHttpApp, type KeyServiceApp } from "../../../electron/service/http/app.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  SQLITE_ONLY,
} from "../../harness/keyServiceProcess.ts";
import { checkAnswersOf } from "../../harness/serviceContract.ts";

/**
 * Retention of the audit history, with the service's clock injected: entries older than the
 * retention go at start and at each daily pass (in batches); younger ones stay. The serve
 * command validates --audit-retention like its other numbers.
 */

const DAY = 24 * 60 * 60 * 1000;
const auth = basic("owner", "owner-secret-1");
let dataDir: string;
let data: DataDir;
let clock = Date.parse("2030-01-01T00:00:00Z");
const now = () => clock;

async function serve(
  days: number,
): Promise<{ service: KeyServiceApp; url: string; stop: () => Promise<void> }> {
  const service = buildHttpApp(data, {
    logLevel: "silent",
    now,
    auditRetentionDays: days,
    keyListWorker: null,
  });
  const url = await service.app.listen({ host: "127.0.0.1", port: 0 });
  const stopChecking = await checkAnswersOf(url);
  return {
    service,
    url,
    stop: async () => {
      stopChecking();
      await service.app.close();
    },
  };
}

async function createKeys(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await request(url, {
      method: "POST",
      path: "/settings/1/accounts/_/api-keys",
      authorization: auth,
      body: { name: `at ${new Date(clock).toISOString()} #${i}` },
    });
    assert.equal(res.status, 200, res.text);
  }
}

async function keyEntryTimes(url: string): Promise<string[]> {
  const res = await request(url, { path: "/local/1/audit?limit=1000", authorization: auth });
  assert.equal(res.status, 200, res.text);
  return (res.json as { entries: { time: string; key: string | null }[] }).entries
    .filter((entry) => entry.key !== null)
    .map((entry) => entry.time);
}

before(async () => {
  dataDir = await makeTempDir("keydesk-audit-retention-");
  await addAccount(dataDir, "owner", "owner-secret-1");
  data = openDataDir({ dataDir });
});
after(async () => {
  data?.close();
  await removeDir(dataDir);
});

test("entries past the retention are deleted by the daily pass; younger ones stay", {
  skip: SQLITE_ONLY,
}, async () => {
  const { service, url, stop } = await serve(30);
  try {
    await createKeys(url, 3);
    clock += 20 * DAY;
    await createKeys(url, 2);
    clock += 11 * DAY; // the first three are 31 days old now, the other two 11
    assert.equal(await service.auditRetention.prune(), 3);
    const times = await keyEntryTimes(url);
    assert.equal(times.length, 2);
    assert.ok(times.every((time) => time.startsWith("2030-01-21")));
  } finally {
    await stop();
  }
});

test("at start, a backlog larger than one batch is deleted whole", { skip: SQLITE_ONLY }, async () => {
  const old = clock;
  await data.store.write(async (tx) => {
    for (let i = 0; i < 2_500; i++) {
      await tx.audit.append({
        at: old - 400 * DAY,
        accountId: 1,
        actor: "owner",
        channel: "api",
        action: "update",
        reason: null,
        key: "0123456789ABCDEF0123456789ABCDEF",
        changes: {},
        address: null,
      });
    }
  });
  const { service, url, stop } = await serve(365);
  try {
    await service.auditRetention.prune(); // joins the pass the start began
    const count = data.db
      .prepare("SELECT count(*) AS n FROM audit_entries WHERE at < ?")
      .get(old - 365 * DAY) as {
      n: number;
    };
    assert.equal(count.n, 0);
    assert.equal((await keyEntryTimes(url)).length, 2, "the younger entries stayed");
  } finally {
    await stop();
  }
});

test("the audit history is append-only: the database refuses to change an entry", {
  skip: SQLITE_ONLY,
}, () => {
  assert.throws(
    () => data.db.prepare("UPDATE audit_entries SET actor = 'someone else'").run(),
    /append-only/,
  );
});

test("serve refuses a retention that is not a whole number of days from 1 to 36500", async () => {
  for (const [args, env] of [
    [["--audit-retention", "0"], {}],
    [["--audit-retention", "1y"], {}],
    [[], { KEY_SERVICE_AUDIT_RETENTION: "40000" }],
  ] as const) {
    const result = await runCli(["serve", "--port", "0", "--data-dir", dataDir, ...args], env);
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /(--audit-retention|KEY_SERVICE_AUDIT_RETENTION) must be a whole number from 1 to 36500/,
    );
  }
});
