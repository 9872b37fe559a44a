import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ApiResponse, basic } from "../../harness/keyServiceProcess.ts";
import { assertApiError, assertOk, keysPath, type Service, startService } from "./serviceFixture.ts";

/**
 * Password checks have a global bound: a flood of wrong guesses from many addresses, each within
 * its per-address allowance (10 in a burst), is mostly refused at once with a 429 instead of
 * queueing minutes of scrypt work, and a first sign-in from another address is answered meanwhile.
 * Before the bound, this load delayed that sign-in by minutes.
 */

const FLOOD_ADDRESSES = 100;
const GUESSES_PER_ADDRESS = 10;
const PER_ADDRESS_AT_ONCE = 4;
const FLOOD_REQUESTS = FLOOD_ADDRESSES * GUESSES_PER_ADDRESS;
/** A hang bound, not a performance target: without the bound the sign-in took minutes. */
const SIGN_IN_BOUND_MS = 10_000;

let service: Service;
let killed = false;

before(async () => {
  service = await startService([
    { username: "alice", password: "alice-secret-1" },
    { username: "bob", password: "bob-secret-1" },
  ]);
});
after(async () => {
  // A service stopped by force (the bound was not kept) does not exit 0; its data dir goes anyway.
  await service?.close().catch((error) => {
    if (!killed) throw error;
  });
});

function within<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timed out">((resolve) => {
    timer = setTimeout(() => resolve("timed out"), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

test(`${FLOOD_ADDRESSES} addresses × ${GUESSES_PER_ADDRESS} wrong guesses do not hold up another address's first sign-in`, async () => {
  // Alice's username with wrong passwords from 127.0.3.1 ... 127.0.3.100, each address keeping
  // PER_ADDRESS_AT_ONCE guesses in flight until it made all of its own: up to 400 connections at
  // once, which stays below the service's connection cap.
  let answered = 0;
  let floodUnderWay: () => void = () => {};
  const underWay = new Promise<void>((resolve) => {
    floodUnderWay = resolve;
  });
  const guess = (address: number, attempt: number) =>
    service
      .call({
        path: keysPath(),
        authorization: basic("alice", `guess-${address}-${attempt}`),
        localAddress: `127.0.3.${address}`,
      })
      .finally(() => {
        answered += 1;
        if (answered >= FLOOD_REQUESTS / 10) floodUnderWay();
      });
  const flood: Promise<ApiResponse[]>[] = [];
  for (let address = 1; address <= FLOOD_ADDRESSES; address++) {
    let next = 0;
    const worker = async () => {
      const answers: ApiResponse[] = [];
      while (next < GUESSES_PER_ADDRESS) answers.push(await guess(address, next++));
      return answers;
    };
    for (let i = 0; i < PER_ADDRESS_AT_ONCE; i++) flood.push(worker());
  }
  const settled = Promise.allSettled(flood);
  // Should the flood end early (a failure), the sign-in below still runs and the test reports it.
  void settled.then(floodUnderWay);

  // During the flood (a tenth of it answered: the flood addresses have been guessing for a while),
  // Bob's first sign-in from a fresh address, which needs a password check.
  await underWay;
  const signIn = service.call({
    path: keysPath(),
    authorization: service.auth("bob"),
    localAddress: "127.0.4.1",
  });
  const started = performance.now();
  const outcome = await within(signIn, SIGN_IN_BOUND_MS);
  if (outcome === "timed out") {
    // Such a flood kept the process busy for minutes: stop it rather than wait.
    const answeredByThen = answered;
    killed = true;
    await service.serve.stop("SIGKILL");
    await settled;
    assert.fail(
      `Bob's first sign-in was not answered within ${SIGN_IN_BOUND_MS / 1000} s during the flood (${answeredByThen} of ${FLOOD_REQUESTS} flood requests answered by then)`,
    );
  }
  assertOk(outcome);
  const signInMs = performance.now() - started;

  // The flood itself ends soon too: most of it is refused without a password check.
  const results = await within(settled, 60_000);
  assert.notEqual(results, "timed out", `the flood was not answered within 60 s (${answered} answered)`);
  const answers = (results as PromiseSettledResult<ApiResponse[]>[]).flatMap((result) => {
    assert.equal(result.status, "fulfilled", String((result as PromiseRejectedResult).reason));
    return (result as PromiseFulfilledResult<ApiResponse[]>).value;
  });
  assert.equal(answers.length, FLOOD_REQUESTS);
  const refused = answers.filter((res) => res.status === 429);
  for (const res of answers) {
    if (res.status === 401) assertApiError(res, 401, "UNAUTHORIZED");
    else assertApiError(res, 429, "TOO_MANY_REQUESTS");
  }
  // Each address stayed within its allowance, so these 429s come from the global bound.
  assert.ok(refused.length > 0, "no flood request was refused with a 429");
  for (const res of refused) {
    const retryAfter = String(res.headers["retry-after"]);
    assert.match(retryAfter, /^[1-9]\d*$/, `Retry-After is not a positive number of seconds: ${retryAfter}`);
  }
  const checked = answers.length - refused.length;
  assert.ok(
    checked < answers.length / 2,
    `${checked} of ${answers.length} guesses were checked (sign-in after ${Math.round(signInMs)} ms)`,
  );
});
