import assert from "node:assert/strict";
import { test } from "node:test";
import {
  PasswordCheckQueue,
  PasswordChecksBusy,
} from "../../../../../electron/service/auth/passwordCheckQueue.ts";

/** Checks that finish when the test says so, recording the order in which they started. */
function gate() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const check = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    const done = finishers.get(name);
    assert.ok(done, `${name} has not started`);
    done();
    // Lets the queue hand the slot on before the test looks again.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, check, finish };
}

test("runs at most `concurrency` checks; the next starts when one finishes", async () => {
  const standing = new Map<string, number>();
  const queue = new PasswordCheckQueue((address) => standing.get(address) ?? 10, {
    concurrency: 2,
    maxWaiting: 4,
  });
  const { started, check, finish } = gate();
  const runs = ["a", "b", "c"].map((name) => queue.run(name, check(name)));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, ["a", "b"]);
  await finish("a");
  assert.deepEqual(started, ["a", "b", "c"]);
  await finish("b");
  await finish("c");
  assert.deepEqual(await Promise.all(runs), ["a", "b", "c"]);
});

test("the address with the most attempts left is served first, first come first served among equals", async () => {
  const standing = new Map([
    ["guesser", 2],
    ["fresh-1", 9],
    ["fresh-2", 9],
  ]);
  const queue = new PasswordCheckQueue((address) => standing.get(address) ?? 10, {
    concurrency: 1,
    maxWaiting: 8,
  });
  const { started, check, finish } = gate();
  const runs = [
    queue.run("busy", check("busy")),
    queue.run("guesser", check("guesser")),
    queue.run("fresh-1", check("fresh-1")),
    queue.run("fresh-2", check("fresh-2")),
  ];
  for (const name of ["busy", "fresh-1", "fresh-2", "guesser"]) await finish(name);
  assert.deepEqual(started, ["busy", "fresh-1", "fresh-2", "guesser"]);
  await Promise.all(runs);
});

test("a full queue refuses a newcomer that stands no better, and displaces the worst for one that does", async () => {
  const standing = new Map([
    ["low", 1],
    ["mid", 5],
    ["mid-too", 5],
    ["fresh", 9],
  ]);
  const queue = new PasswordCheckQueue((address) => standing.get(address) ?? 10, {
    concurrency: 1,
    maxWaiting: 2,
  });
  const { started, check, finish } = gate();
  const running = queue.run("busy", check("busy"));
  const low = queue.run("low", check("low"));
  const mid = queue.run("mid", check("mid"));

  // As good as the worst waiting (or worse) is not good enough: refused at once.
  const refused = await queue.run("low", check("low-again")).catch((error) => error);
  assert.ok(refused instanceof PasswordChecksBusy);
  assert.ok(refused.retryAfterSeconds >= 1);

  // Better than the worst waiting: that one is displaced, with a Retry-After.
  const fresh = queue.run("fresh", check("fresh"));
  const displaced = await low.catch((error) => error);
  assert.ok(displaced instanceof PasswordChecksBusy);

  // Standing is read when it matters: an address that keeps guessing falls behind its own waiting check.
  standing.set("mid", 0);
  const midToo = queue.run("mid-too", check("mid-too"));
  assert.ok((await mid.catch((error) => error)) instanceof PasswordChecksBusy);

  for (const name of ["busy", "fresh", "mid-too"]) await finish(name);
  assert.deepEqual(started, ["busy", "fresh", "mid-too"]);
  await Promise.all([running, fresh, midToo]);
});

test("a check that fails frees its slot", async () => {
  const queue = new PasswordCheckQueue(() => 10, { concurrency: 1, maxWaiting: 1 });
  await assert.rejects(
    queue.run("a", () => Promise.reject(new Error("boom"))),
    /boom/,
  );
  assert.equal(await queue.run("a", async () => "next"), "next");
});
