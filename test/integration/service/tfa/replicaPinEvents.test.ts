import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import type { Account } from "../../../../electron/service/domain/accounts.ts";
import { newAccountKey } from "../../../../electron/service/domain/identifiers.ts";
import {
  CHANGES_CHANNEL,
  type PostgresChangeFeed,
} from "../../../../electron/service/store/postgres/postgresChangeFeed.ts";
import type { Store } from "../../../../electron/service/store/store.ts";
import type { PinEvent } from "../../../../electron/service/tfa/pinEvents.ts";
import { createTfaSimulator, type TfaSimulator } from "../../../../electron/service/tfa/tfaSimulator.ts";
import { eventually } from "../../../harness/eventually.ts";
import { openStore, postgresReplica } from "../store/storeSubjects.ts";

/**
 * PIN events across replicas: the 2FA simulator of the service on each of two PostgresStores on one
 * database. What one replica sends or verifies reaches the other's event listeners (its open
 * `/local/1/pins/stream`s) through the change feed, once and in commit order; each replica tells
 * its own events itself, and its own notifications do not tell them again. A notification names
 * ids and counts only: the PIN, the text and the number are read from the store, where they are sealed.
 */

const TEXT = "Your Keydesk code is {{pin}}, keep it to yourself";

/** What a test compares of an event: its type, PIN, and the state a state event reports. */
function shape(event: PinEvent) {
  return event.type === "captured"
    ? { type: event.type, pinId: event.pin.pinId, to: event.pin.to, channel: event.pin.channel }
    : { type: event.type, ...event.state };
}

async function twoReplicas(t: { skip(message: string): void }) {
  const subject = await openStore("postgres", t);
  if (!subject) return undefined;
  const stores = { a: subject.store, b: postgresReplica(subject.url as string, subject.box) as Store };
  const a = createTfaSimulator(stores.a);
  const b = createTfaSimulator(stores.b);
  const seen = { a: [] as PinEvent[], b: [] as PinEvent[] };
  a.events.subscribe((event) => seen.a.push(event));
  b.events.subscribe((event) => seen.b.push(event));
  await Promise.all([
    (stores.a.changes as PostgresChangeFeed).whenListening(),
    (stores.b.changes as PostgresChangeFeed).whenListening(),
  ]);
  const account: Account = await stores.a.write((tx) =>
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
    configuration: { pinAttempts: 5, verifyPinLimit: "1000/1s" },
  });
  const { messageId } = await a.applications.createTemplate(account, applicationId, {
    messageText: TEXT,
    pinType: "ALPHANUMERIC",
    pinLength: 12,
  });
  const send = (replica: TfaSimulator, to: string) =>
    replica.pins.sendSms(account, {}, { applicationId, messageId, to });
  return { subject, stores, a, b, seen, account, applicationId, send };
}

test("a PIN sent, resent and verified through replica A reaches replica B's listeners once, in order", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, seen, account, applicationId, send, subject } = setup;

  const { pinId } = await send(a, "41790000001");
  const pin = (await subject.store.tfaPins.record(pinId))?.pin as string;
  await a.pins.verify(account, pinId, { pin: "000000000000" });
  await a.pins.resendVoice(account, pinId, {});
  await a.pins.verify(account, pinId, { pin });
  // A failing test number: listed as not delivered, and verifying it changes its state all the same.
  const failing = await send(a, "447700900001");
  await a.pins.verify(account, failing.pinId, { pin: "000000000000" });
  // B tells another replica's events once it has read them from the store, and its own at once:
  // the two are not ordered with each other, so B sends only after it told A's six.
  await eventually("B to hear A's last verify", async () => (seen.b.length >= 6 ? true : undefined));
  const own = await send(b, "41790000002");
  await eventually(
    "A to hear B's send",
    async () =>
      seen.a.some((event) => event.type === "captured" && event.pin.pinId === own.pinId) || undefined,
  );

  const state = (id: string, to: string, attemptsRemaining: number, verified: boolean) => ({
    type: "state",
    pinId: id,
    applicationId,
    to,
    attemptsRemaining,
    verified,
  });
  const byA = [
    { type: "captured", pinId, to: "41790000001", channel: "SMS" },
    state(pinId, "41790000001", 4, false),
    { type: "captured", pinId, to: "41790000001", channel: "VOICE" },
    state(pinId, "41790000001", 4, true),
    { type: "captured", pinId: failing.pinId, to: "447700900001", channel: "SMS" },
    state(failing.pinId, "447700900001", 4, false),
  ];
  const byB = { type: "captured", pinId: own.pinId, to: "41790000002", channel: "SMS" };
  assert.deepEqual(seen.b.map(shape), [...byA, byB], "B: A's events in order, then its own, each once");
  assert.deepEqual(seen.a.map(shape), [...byA, byB], "A: its own events once, then B's");

  // What B read from the store is the message as A captured it.
  const captured = seen.b.filter((event) => event.type === "captured");
  for (const event of captured.slice(0, 2)) {
    assert.equal(event.type === "captured" && event.pin.pin, pin);
    assert.equal(event.type === "captured" && event.pin.text, TEXT.replace("{{pin}}", pin));
    assert.equal(event.type === "captured" && event.pin.applicationName, "login");
    assert.equal(event.accountId, account.id);
  }
  const notDelivered = captured.find(
    (event) => event.type === "captured" && event.pin.pinId === failing.pinId,
  );
  assert.equal(notDelivered?.type === "captured" && notDelivered.pin.delivered, false);
  assert.equal(notDelivered?.type === "captured" && notDelivered.pin.status, "MESSAGE_NOT_SENT");
});

test("the change feed carries no PIN, message text or phone number of a PIN event", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, seen, account, send, subject } = setup;
  const listener = new pg.Client({ connectionString: subject.url });
  await listener.connect();
  t.after(() => listener.end());
  const payloads: string[] = [];
  listener.on("notification", (message) => payloads.push(message.payload ?? ""));
  await listener.query(`LISTEN ${CHANGES_CHANNEL}`);

  const { pinId } = await send(a, "41790000001");
  const pin = (await subject.store.tfaPins.record(pinId))?.pin as string;
  await a.pins.verify(account, pinId, { pin: "000000000000" });
  await a.pins.verify(account, pinId, { pin });
  await eventually("the three PIN events' notifications", async () =>
    payloads.filter((payload) => payload.startsWith("pin-event:")).length >= 3 ? true : undefined,
  );
  assert.equal(seen.a.length, 3);
  for (const payload of payloads) {
    for (const secret of [pin, "41790000001", "Keydesk code"]) {
      assert.ok(!payload.includes(secret), `${payload} names no ${secret}`);
    }
  }
});

test("another replica's events are told to the listeners there when they come, none replayed to a later one", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, seen, send } = setup;
  // A second simulator on B's store, with no listener yet: B's events reach no stream of it.
  const quiet = createTfaSimulator(setup.stores.b);
  const first = await send(a, "41790000001");
  // B's first simulator heard the same notification, so the quiet one has been told it too.
  await eventually(
    "B to hear the first send",
    async () =>
      seen.b.some((event) => event.type === "captured" && event.pin.pinId === first.pinId) || undefined,
  );
  const heard: PinEvent[] = [];
  quiet.events.subscribe((event) => heard.push(event));
  const later = await send(a, "41790000003");
  await eventually(
    "the new listener to hear the later send",
    async () =>
      heard.some((event) => event.type === "captured" && event.pin.pinId === later.pinId) || undefined,
  );
  assert.deepEqual(
    heard.map((event) => event.type === "captured" && event.pin.pinId),
    [later.pinId],
    "the send before the listener came is not told to it",
  );
});
