import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Two `serve` processes started at the same moment on one empty data directory (a team server's
 * replicas, or the desktop and a `serve` launched together): both start, on one schema and one
 * data key, so a key written through either is read through the other.
 */

const PAIRS = 20;
const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await removeDir(dir);
});

/** Starts two serve processes at once on a fresh directory; answers why either failed, if one did. */
async function startPair(
  pair: number,
): Promise<{ failures: string[]; dataDir: string; running: ServeProcess[] }> {
  const dataDir = await makeTempDir("keydesk-concurrent-start-");
  dirs.push(dataDir);
  const started = await Promise.allSettled([startServe({ dataDir }), startServe({ dataDir })]);
  const failures = started.flatMap((result) =>
    result.status === "rejected" ? [`pair ${pair}: ${(result.reason as Error).message}`] : [],
  );
  const running = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  return { failures, dataDir, running };
}

test(`${PAIRS} pairs of serve processes started at once on an empty data directory all start`, async () => {
  const failures: string[] = [];
  // Two pairs at a time (each on its own directory): the race is within a pair.
  for (let pair = 0; pair < PAIRS; pair += 2) {
    const pairs = await Promise.all([startPair(pair), startPair(pair + 1)]);
    for (const { running, failures: failed } of pairs) {
      failures.push(...failed);
      await Promise.all(running.map((serve) => serve.stop()));
    }
  }
  assert.deepEqual(failures, []);
});

test("the two processes of a pair share one schema and one data key: a key written through one is read through the other", async () => {
  const { running, failures, dataDir } = await startPair(PAIRS);
  try {
    assert.deepEqual(failures, []);
    await assertShared(running as [ServeProcess, ServeProcess], dataDir, PAIRS);
  } finally {
    await Promise.all(running.map((serve) => serve.stop()));
  }
});

async function assertShared([first, second]: [ServeProcess, ServeProcess], dataDir: string, pair: number) {
  const accountKey = await addAccount(dataDir, `admin${pair}`, "a long enough password 1");
  const auth = basic(`admin${pair}`, "a long enough password 1");
  const created = await request(first.url, {
    method: "POST",
    path: `/settings/1/accounts/${accountKey}/api-keys`,
    authorization: auth,
    body: { name: "written by the first" },
  });
  assert.equal(created.status, 200, created.text);
  const { key, publicApiKey } = created.json as { key: string; publicApiKey: string };
  const read = await request(second.url, {
    path: `/settings/1/accounts/${accountKey}/api-keys/${key}`,
    authorization: auth,
  });
  assert.equal(read.status, 200, read.text);
  assert.equal(
    (read.json as { publicApiKey: string }).publicApiKey,
    publicApiKey,
    "the second reads it with the same data key",
  );
}
