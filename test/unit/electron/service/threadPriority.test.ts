import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { test } from "node:test";
import { preciseSleepsThisThread, yieldThisThread } from "../../../../electron/service/threadPriority.ts";
import { SCHED_IDLE, THREAD_POLICIES_MODULE } from "../../../harness/threadPolicies.ts";

const linux = { skip: process.platform !== "linux" && "reads Linux's /proc" };

/** Times this thread has left its core of its own accord (slept). */
function voluntarySwitches(): number {
  const status = readFileSync("/proc/thread-self/status", "utf8");
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1]);
}

test("a yield takes the thread off its core: every call is a sleep, not a busy wait (Linux)", linux, () => {
  const before = voluntarySwitches();
  for (let call = 0; call < 20; call++) yieldThisThread();
  // A busy wait leaves the core ~0 times; on a loaded machine a sleep's timer may expire before the
  // thread is taken off (19 of 20 was seen), so "nearly every call" is what tells the two apart.
  assert.ok(voluntarySwitches() - before >= 16, `${voluntarySwitches() - before} sleeps for 20 yields`);
});

test("precise sleeps set the calling thread's timer slack to 1 ns (Linux)", linux, () => {
  const thread = readlinkSync("/proc/thread-self").split("/").at(-1) as string;
  const slackFile = `/proc/${thread}/timerslack_ns`;
  const before = readFileSync(slackFile, "utf8").trim();
  assert.notEqual(before, "1", "the thread starts with the default slack");
  assert.equal(preciseSleepsThisThread(), true);
  assert.equal(readFileSync(slackFile, "utf8").trim(), "1");
});

test("a process sent to the idle class has every thread there, its helper threads too (Linux)", linux, () => {
  const script = `
    import { threadPolicies } from ${JSON.stringify(THREAD_POLICIES_MODULE)};
    import { idleThisProcess } from ${JSON.stringify(new URL("../../../../electron/service/threadPriority.ts", import.meta.url).pathname)};
    const got = idleThisProcess();
    console.log(JSON.stringify({ got, policies: threadPolicies().map((thread) => thread.policy) }));`;
  const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  const { got, policies } = JSON.parse(printed) as { got: string; policies: number[] };
  assert.equal(got, "idle");
  assert.ok(policies.length > 1, "Node's helper threads are there");
  assert.deepEqual(new Set(policies), new Set([SCHED_IDLE]));
});
