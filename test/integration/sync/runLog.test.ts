import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SYNC_RUN_LOG_SIZE, type SyncRunDto } from "../../../shared/sync.ts";
import { eventually, link, linkState, runLink, type SyncPair, startPair } from "./syncFixture.ts";

/**
 * A link's run log: every finished run is recorded in the link's state (time, keys pulled and
 * pushed, conflicts left, error), newest first, kept across a restart of the service, and bounded.
 */

let pair: SyncPair;
let linkId: number;
before(async () => {
  pair = await startPair();
});
after(() => pair.close());

const runsOf = async () => (await linkState(pair.local, linkId)).recentRuns;

/**
 * The runs recorded since `before` (a change queued here also starts a run of its own a second
 * later, so what one change did may be split over two runs), added up.
 */
async function since(before: readonly SyncRunDto[]) {
  const runs = await runsOf();
  const added = runs.slice(0, runs.length - before.length);
  return {
    added,
    pulled: added.reduce((sum, run) => sum + run.pulled, 0),
    pushed: added.reduce((sum, run) => sum + run.pushed, 0),
  };
}

test("each run is logged with what it pulled, pushed, the conflicts it left and its error", async () => {
  const { local, remote } = pair;
  await remote.createKeys(3);
  linkId = (await link(local, remote.url)).id; // its first run starts at once
  await runLink(local, linkId);
  const first = await since([]);
  assert.equal(first.pulled, 3, "the three remote keys came in");
  assert.equal(first.pushed, 0);
  for (const run of first.added) {
    assert.equal(run.error, null);
    assert.equal(run.conflicts, 0);
    assert.ok(run.endedAt >= run.startedAt);
  }

  // Two local changes go out: a new key and a rename.
  let mark = await runsOf();
  const [renamed] = await local.keys();
  assert.ok(renamed);
  await local.createKey({ name: "made here" });
  await local.updateKey(renamed.key, { name: "renamed here" });
  await runLink(local, linkId);
  const pushed = await since(mark);
  assert.deepEqual([pushed.pulled, pushed.pushed], [0, 2]);

  // The same field changed on both sides: the run leaves a conflict.
  mark = await runsOf();
  await remote.updateKey(renamed.key, { name: "theirs" });
  await local.updateKey(renamed.key, { name: "mine" });
  await runLink(local, linkId);
  const [conflicted] = await runsOf();
  assert.equal(conflicted?.conflicts, 1);
  assert.equal(conflicted?.error, null);

  // The remote is down: the run's error is logged.
  await remote.stop();
  const failed = await runLink(local, linkId);
  // Read before the remote is back: the backoff's run would then go through.
  const [down] = await runsOf();
  await remote.start();
  assert.equal(down?.error, failed.lastError);
  assert.match(down?.error ?? "", /could not reach/);
  assert.deepEqual([down?.pulled, down?.pushed, down?.conflicts], [0, 0, 1]);

  // A restart of the service keeps the log (a run due at the start may come before it).
  const logged = await runsOf();
  await local.stop();
  await local.start();
  assert.deepEqual((await runsOf()).slice(-logged.length), logged);
});

test(`the log keeps the newest ${SYNC_RUN_LOG_SIZE} runs`, async () => {
  const { local } = pair;
  const oldest = (await runsOf()).at(-1);
  for (let run = 0; run < SYNC_RUN_LOG_SIZE; run++) await runLink(local, linkId);
  const runs = await eventually("the log to be full", async () => {
    const now = await runsOf();
    return now.length === SYNC_RUN_LOG_SIZE ? now : undefined;
  });
  assert.ok(oldest);
  assert.equal(
    runs.some((run) => run.startedAt === oldest.startedAt && run.pulled === oldest.pulled),
    false,
    "the oldest run was dropped",
  );
  const times = runs.map((run) => run.startedAt);
  assert.deepEqual(times, [...times].sort().reverse(), "newest first");
});
