import assert from "node:assert/strict";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { eventually } from "../../harness/eventually.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  SQLITE_ONLY,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Liveness and readiness for a load balancer: no credentials, nothing about the data in the answer,
 * and a database that cannot be read makes the instance not ready while it stays alive.
 */

const PASSWORD = "a long enough password 1";
const LIVE = "/local/1/health/live";
const READY = "/local/1/health/ready";
const dirs: string[] = [];
let serve: ServeProcess;

before(async () => {
  const dir = await makeTempDir("keydesk-health-");
  dirs.push(dir);
  await addAccount(dir, "admin", PASSWORD);
  serve = await startServe({ dataDir: dir, env: { KEY_SERVICE_LOG_LEVEL: "info" } });
});
after(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

type ErrorBody = { requestError: { serviceException: { messageId: string; text: string } } };

test("a running service is live and ready, answered without credentials and never cached", async () => {
  for (const path of [LIVE, READY]) {
    const res = await request(serve.url, { path });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { status: "ok" });
    assert.equal(res.headers["cache-control"], "no-store");
  }
});

test("probes every few seconds do not fill the log: a healthy answer is not logged", async () => {
  for (let i = 0; i < 5; i++) await request(serve.url, { path: READY });
  await request(serve.url, { path: "/local/1/accounts", authorization: basic("admin", PASSWORD) });
  // The accounts request is logged (the log reaches stderr a moment after the answer), so the
  // log is being written; the probes, asked before it, are not in it.
  await eventually("the accounts request in the log", async () =>
    /\/local\/1\/accounts/.test(serve.stderr()) ? true : undefined,
  );
  assert.doesNotMatch(serve.stderr(), /health/);
});

test("a database whose keys table cannot be read: not ready (503, nothing about the file), still live", {
  skip: SQLITE_ONLY,
}, async () => {
  const dir = await makeTempDir("keydesk-health-damaged-");
  dirs.push(dir);
  await addAccount(dir, "admin", PASSWORD);
  const file = join(dir, "keydesk.db");
  const db = new Database(file);
  const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'api_keys'").get() as {
    rootpage: number;
  };
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize);
  closeSync(fd);

  const damaged = await startServe({ dataDir: dir, args: ["--start-check-max-mb", "0"] });
  try {
    const ready = await request(damaged.url, { path: READY });
    assert.equal(ready.status, 503, ready.text);
    assert.equal(ready.headers["cache-control"], "no-store");
    const { messageId, text } = (ready.json as ErrorBody).requestError.serviceException;
    assert.equal(messageId, "SERVICE_UNAVAILABLE");
    assert.equal(text, "the service cannot read its database; its log says why");
    assert.ok(!ready.text.includes(dir), "the answer names no path");
    assert.equal((await request(damaged.url, { path: LIVE })).status, 200);
    await eventually("the reason in the log", async () =>
      /readiness: the database did not answer/.test(damaged.stderr()) ? true : undefined,
    );
  } finally {
    await damaged.stop();
  }
});
