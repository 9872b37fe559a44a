import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
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
 * A create the service answered with 200 survives the process being killed (SIGKILL, no
 * shutdown at all) while other creates are still in flight, cycle after cycle on one data dir.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const LOOPS = 16;
const ANSWERED_BEFORE_KILL = 200;
const CYCLES = 3;

interface Confirmed {
  key: string;
  name: string;
  publicApiKey: string;
}

/** Runs LOOPS concurrent create loops and kills the server once enough creates were answered. */
async function burstAndKill(server: ServeProcess, auth: string, cycle: number) {
  const confirmed: Confirmed[] = [];
  let inFlight = 0;
  let inFlightAtKill = -1;
  let failures = 0;
  const loop = async (loopIndex: number) => {
    for (let n = 0; ; n++) {
      inFlight++;
      try {
        const response = await request(server.url, {
          method: "POST",
          path: KEYS,
          authorization: auth,
          body: { name: `cycle ${cycle} loop ${loopIndex} #${n}` },
        });
        assert.equal(response.status, 200, response.text);
        confirmed.push(response.json as Confirmed);
      } catch (error) {
        if ((error as { code?: string }).code === "ERR_ASSERTION") throw error;
        failures++;
        return; // the connection died with the process
      } finally {
        inFlight--;
      }
      if (confirmed.length >= ANSWERED_BEFORE_KILL && inFlightAtKill === -1) {
        inFlightAtKill = inFlight;
        server.child.kill("SIGKILL");
      }
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, (_, index) => loop(index)));
  const exit = await server.stop();
  return { confirmed, inFlightAtKill, failures, exit };
}

test("every create answered 200 survives kill -9 mid-burst, three times on the same data dir", {
  skip: SQLITE_ONLY,
}, async (t) => {
  const dir = await makeTempDir();
  const auth = basic("durable", "durable-password");
  await addAccount(dir, "durable", "durable-password");
  let server = await startServe({ dataDir: dir });
  t.after(async () => {
    await server.stop("SIGKILL");
    await removeDir(dir);
  });

  const allConfirmed: Confirmed[] = [];
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    // Pay for the password check before the burst, so the burst is all writes.
    const warm = await request(server.url, { path: KEYS, authorization: auth });
    assert.equal(warm.status, 200, warm.text);

    const burst = await burstAndKill(server, auth, cycle);
    t.diagnostic(
      `cycle ${cycle}: ${burst.confirmed.length} creates answered, ${burst.inFlightAtKill} in flight at the kill`,
    );
    assert.deepEqual(burst.exit, { code: null, signal: "SIGKILL" }, "the server died of the kill");
    assert.ok(burst.confirmed.length >= ANSWERED_BEFORE_KILL);
    assert.ok(burst.inFlightAtKill > 0, "creates were still in flight when the server was killed");
    assert.ok(burst.failures > 0, "some creates were cut off by the kill");
    allConfirmed.push(...burst.confirmed);

    server = await startServe({ dataDir: dir });
    for (const expected of allConfirmed) {
      const fetched = await request(server.url, { path: `${KEYS}/${expected.key}`, authorization: auth });
      assert.equal(fetched.status, 200, `key ${expected.key} (${expected.name}) is gone after the kill`);
      const stored = fetched.json as Confirmed;
      assert.equal(stored.name, expected.name);
      assert.equal(stored.publicApiKey, expected.publicApiKey);
      const lookup = await request(server.url, {
        path: `${KEYS}?publicApiKey=${encodeURIComponent(expected.publicApiKey)}`,
        authorization: auth,
      });
      assert.equal(lookup.status, 200, lookup.text);
      const found = (lookup.json as { apiKeys: Confirmed[] }).apiKeys;
      assert.deepEqual(
        found.map((k) => k.key),
        [expected.key],
        `?publicApiKey= finds ${expected.key}`,
      );
    }
    const list = await request(server.url, { path: KEYS, authorization: auth });
    const listed = new Set((list.json as { apiKeys: Confirmed[] }).apiKeys.map((k) => k.key));
    // Creates cut off by the kill may or may not have been committed; answered ones must be.
    assert.ok(listed.size >= allConfirmed.length);
    for (const expected of allConfirmed) assert.ok(listed.has(expected.key));
  }

  const exit = await server.stop("SIGTERM");
  assert.deepEqual(exit, { code: 0, signal: null }, server.stderr());
  const db = new Database(join(dir, "keydesk.db"), { readonly: true });
  try {
    assert.equal(db.pragma("integrity_check", { simple: true }), "ok");
  } finally {
    db.close();
  }
});
