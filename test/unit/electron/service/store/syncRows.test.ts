import assert from "node:assert/strict";
import { test } from "node:test";
import { type LinkRow, runLogWith, toLink } from "../../../../../electron/service/store/syncRows.ts";

/** A link's row as either database answers it, with `run_log` as given. */
const rowWith = (runLog: string | null): LinkRow => ({
  id: 1,
  account_id: 1,
  remote_base_url: "https://keys.example",
  remote_username: "ana",
  remote_account_key: "_",
  interval_seconds: 300,
  paused_reason: null,
  last_attempt_at: null,
  last_success_at: null,
  last_error: null,
  next_attempt_at: null,
  failures: 0,
  run_log: runLog,
});

const run = { startedAt: 1_000, endedAt: 2_000, pulled: 3, pushed: 1, conflicts: 0, error: null };

test("a stored run log reads back as its runs, newest first, each field checked", () => {
  const failed = { ...run, startedAt: 3_000, endedAt: 4_000, error: "the remote refused the credentials" };
  const stored = runLogWith(runLogWith(null, run, 50), failed, 50);
  assert.deepEqual(toLink(rowWith(stored)).runLog, [failed, run]);
});

test("a run that does not read as one is left out, the others stay; a log that is no list starts again", () => {
  const stored = JSON.stringify([
    run,
    { ...run, pulled: "3" },
    { ...run, conflicts: -1 },
    { ...run, error: undefined },
    null,
    { ...run, extra: "dropped" },
  ]);
  assert.deepEqual(toLink(rowWith(stored)).runLog, [run, run]);
  assert.deepEqual(toLink(rowWith('{"startedAt":1}')).runLog, []);
  assert.deepEqual(toLink(rowWith("not json")).runLog, []);
  assert.deepEqual(toLink(rowWith(null)).runLog, []);
  // Writing over an unreadable log keeps what reads and adds the run.
  assert.deepEqual(JSON.parse(runLogWith(stored, run, 3)), [run, run, run]);
});
