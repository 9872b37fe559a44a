import assert from "node:assert/strict";
import { test } from "node:test";
import type { Account } from "../../../../../electron/service/domain/accounts.ts";
import { newAccountKey } from "../../../../../electron/service/domain/identifiers.ts";
import { ApiError } from "../../../../../electron/service/errors.ts";
import type { Store } from "../../../../../electron/service/store/store.ts";
import { PinEvents } from "../../../../../electron/service/tfa/pinEvents.ts";
import { TfaApplications } from "../../../../../electron/service/tfa/tfaApplications.ts";
import { TfaPins } from "../../../../../electron/service/tfa/tfaPins.ts";
import { openStore, poolOn, postgresReplica, storedRows } from "../storeSubjects.ts";

/**
 * The 2FA simulator on two replicas of one PostgreSQL database: the real TfaApplications and
 * TfaPins of the service on each of two PostgresStores (each with its own pool), called at once.
 * PIN attempts and send limits are counted once across them; PINs and texts are stored sealed.
 */

/** The 2FA simulator as one replica runs it on `store`. */
function replicaOn(store: Store) {
  const applications = new TfaApplications(store);
  return { applications, pins: new TfaPins(applications, store, new PinEvents()) };
}

/** Replicas A and B on one fresh database, an account, and an application with a template made through A. */
async function twoReplicas(t: { skip(message: string): void }, configuration: Record<string, unknown>) {
  const subject = await openStore("postgres", t);
  if (!subject) return undefined;
  const a = replicaOn(subject.store);
  const b = replicaOn(postgresReplica(subject.url as string, subject.box));
  const account: Account = await subject.store.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "owner",
      passwordHash: "hash",
      parentId: null,
      createdAt: 1,
    }),
  );
  const { applicationId } = await a.applications.create(account, {
    name: "login",
    configuration: { verifyPinLimit: "1000/1s", ...configuration },
  });
  const { messageId } = await a.applications.createTemplate(account, applicationId, {
    messageText: "Your Keydesk code is {{pin}}, keep it to yourself",
    pinType: "ALPHANUMERIC",
    pinLength: 12,
  });
  const send = (replica: typeof a, to: string) =>
    replica.pins.sendSms(account, {}, { applicationId, messageId, to });
  return { subject, a, b, account, send };
}

/** Calls `count` times at once, alternating between the replicas. */
function alternating<T>(count: number, call: (replica: "a" | "b", index: number) => Promise<T>) {
  return Promise.allSettled(Array.from({ length: count }, (_, index) => call(index % 2 ? "b" : "a", index)));
}

const refusedWith429 = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === "rejected" &&
  outcome.reason instanceof ApiError &&
  outcome.reason.status === 429 &&
  /sendPinPer(Application|PhoneNumber)Limit/.test(outcome.reason.message);

test("wrong PINs sent at once through two replicas spend each attempt exactly once", async (t) => {
  const setup = await twoReplicas(t, { pinAttempts: 5 });
  if (!setup) return;
  const { a, b, account, send, subject } = setup;
  const { pinId } = await send(a, "41790000001");
  const replicas = { a, b };
  const outcomes = await alternating(12, (replica) =>
    replicas[replica].pins.verify(account, pinId, { pin: "000000000000" }),
  );
  const answers = outcomes.map((outcome) => {
    assert.equal(outcome.status, "fulfilled", String((outcome as PromiseRejectedResult).reason));
    return (outcome as PromiseFulfilledResult<Awaited<ReturnType<TfaPins["verify"]>>>).value;
  });
  const wrong = answers.filter((answer) => answer.pinError === "WRONG_PIN");
  assert.deepEqual(
    wrong.map((answer) => answer.attemptsRemaining).sort(),
    [0, 1, 2, 3, 4],
    "each attempt was spent by one call, none twice",
  );
  const refused = answers.filter((answer) => answer.pinError === "NO_MORE_PIN_ATTEMPTS");
  assert.equal(refused.length, 7);
  for (const answer of refused) assert.equal(answer.attemptsRemaining, 0);
  assert.equal((await subject.store.tfaPins.status(pinId))?.attemptsRemaining, 0);
});

test("the right PIN verified at once through two replicas is verified by one call, the other refused", async (t) => {
  const setup = await twoReplicas(t, { pinAttempts: 3, allowMultiplePinVerifications: false });
  if (!setup) return;
  const { a, b, account, send, subject } = setup;
  const { pinId } = await send(a, "41790000001");
  const pin = (await subject.store.tfaPins.record(pinId))?.pin as string;
  const answers = await Promise.all([
    a.pins.verify(account, pinId, { pin }),
    b.pins.verify(account, pinId, { pin }),
  ]);
  assert.deepEqual(answers.map((answer) => [answer.verified, answer.pinError ?? null]).sort(), [
    [false, "NO_MORE_PIN_ATTEMPTS"],
    [true, null],
  ]);
  const status = await subject.store.tfaPins.status(pinId);
  assert.deepEqual([status?.verified, status?.attemptsRemaining], [true, 3], "no attempt spent");
});

test("verify calls at once through two replicas are counted once: the verifyPinLimit stops them all at it", async (t) => {
  const setup = await twoReplicas(t, { pinAttempts: 100, verifyPinLimit: "4/1h" });
  if (!setup) return;
  const { a, b, account, send, subject } = setup;
  const { pinId } = await send(a, "41790000001");
  const replicas = { a, b };
  const verify = (replica: "a" | "b") =>
    replicas[replica].pins.verify(account, pinId, { pin: "000000000000" });
  const outcomes = await alternating(10, verify);
  const refused = outcomes.filter(
    (outcome) =>
      outcome.status === "rejected" &&
      outcome.reason instanceof ApiError &&
      outcome.reason.status === 429 &&
      /verifyPinLimit/.test(outcome.reason.message),
  );
  assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, 4);
  assert.equal(refused.length, 6, "every other call refused with 429");
  await assert.rejects(verify("b"), (error) => error instanceof ApiError && error.status === 429);
  await assert.rejects(verify("a"), (error) => error instanceof ApiError && error.status === 429);
  assert.equal((await storedRows(subject, "tfa_verify_calls")).length, 4, "refused calls are not counted");
});

test("sends at once through two replicas stop exactly at the application's send limit", async (t) => {
  const setup = await twoReplicas(t, {
    sendPinPerApplicationLimit: "5/1d",
    sendPinPerPhoneNumberLimit: "100/1d",
  });
  if (!setup) return;
  const { a, b, send } = setup;
  const replicas = { a, b };
  const outcomes = await alternating(12, (replica, index) =>
    send(replicas[replica], `4179000${1000 + index}`),
  );
  assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, 5);
  assert.equal(outcomes.filter(refusedWith429).length, 7);
  await assert.rejects(send(b, "41790009999"), (error) => error instanceof ApiError && error.status === 429);
});

test("sends and resends to one number at once through two replicas stop exactly at the number's limit", async (t) => {
  const setup = await twoReplicas(t, {
    sendPinPerApplicationLimit: "100/1d",
    sendPinPerPhoneNumberLimit: "4/1d",
  });
  if (!setup) return;
  const { a, b, account, send } = setup;
  const replicas = { a, b };
  const { pinId } = await send(a, "41790000001");
  const outcomes = await alternating(10, (replica, index) =>
    index % 3 === 0
      ? replicas[replica].pins.resendSms(account, pinId, {})
      : send(replicas[replica], "41790000001"),
  );
  assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, 3, "4 with the first");
  assert.equal(outcomes.filter(refusedWith429).length, 7);
  // Another number of the same application is not held back.
  await send(b, "41790000002");
});

test("no PIN and no message text is stored in clear: not in any text or bytea column of any table", async (t) => {
  const setup = await twoReplicas(t, {});
  if (!setup) return;
  const { a, b, account, send, subject } = setup;
  const { pinId } = await send(a, "41790000001");
  await b.pins.resendVoice(account, pinId, {});
  const [captured] = await subject.store.tfaPins.captured({ accountIds: [account.id], limit: 1 });
  assert.ok(captured);
  const secrets = [captured.pin, captured.text];
  assert.match(captured.text, new RegExp(captured.pin));
  const pool = poolOn(subject.url as string, 1);
  const { rows: columns } = await pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type IN ('text', 'bytea')`,
  );
  assert.ok(columns.some((column) => column.column_name === "pin_sealed"));
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    for (const secret of secrets) {
      const needle = type === "bytea" ? Buffer.from(secret, "utf8") : secret;
      const { rows } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${table}" WHERE position($1 IN "${column}") > 0`,
        [needle],
      );
      assert.equal(Number(rows[0]?.n), 0, `${table}.${column} holds a PIN or a message text in clear`);
    }
  }
});
