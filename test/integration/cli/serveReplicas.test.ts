import assert from "node:assert/strict";
import { describe, test } from "node:test";
import pg from "pg";
import { CHANGES_CHANNEL } from "../../../electron/service/store/postgres/postgresChangeFeed.ts";
import { eventually } from "../../harness/eventually.ts";
import { request, type ServeProcess } from "../../harness/keyServiceProcess.ts";
import { postgresClusterForFile, skipWithoutPostgres } from "../../harness/postgres.ts";
import { REPLICA_OWNER, startReplicas } from "../../harness/postgresReplicas.ts";
import { openEventStream } from "../service/tfa/eventStreamClient.ts";

/**
 * Two `key-service serve` processes (replicas A and B) on one PostgreSQL database behave as one
 * service: a key disabled through one is refused by the other, also while the other's LISTEN
 * connection is down; an Idempotency-Key retried on the other answers the first answer; PIN send
 * limits and PIN attempts are counted once; a PIN sent through one shows in the other's PIN stream; and a replica
 * killed with SIGKILL in a create burst loses none of the creates it answered.
 *
 * B drops a cached key when it hears the commit's notification, which is not ordered with A's
 * answer to its client: where a test needs B to have heard a commit, it waits for B to refuse a
 * key disabled after it (notifications reach B in commit order), then asks B about the first key
 * once. While B's LISTEN connection is down, nothing is waited for.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const OWNER = REPLICA_OWNER;
const APPLICATIONS = "/2fa/2/applications";

const postgres = postgresClusterForFile();

interface Key {
  key: string;
  publicApiKey: string;
  name: string;
}

/**
 * A fresh database with an owner account, replicas A and B serving it (each connection of B's named
 * `keydesk-replica-b` in pg_stat_activity), and a connection of the test's own to the database;
 * all of them ended after the test.
 */
async function twoReplicas(t: { after(fn: () => Promise<void>): void }) {
  let admin: pg.Client | undefined;
  const started = await startReplicas(postgres.cluster(), ["keydesk-replica-a", "keydesk-replica-b"]);
  t.after(async () => {
    await started.stop();
    await admin?.end();
  });
  const { url } = started;
  const [a, b] = started.replicas as [ServeProcess, ServeProcess];

  const client = new pg.Client({ connectionString: url });
  admin = client;
  await client.connect();
  /** The backend of B's change feed (its LISTEN connection), once B has one. */
  const listenerOfB = () =>
    eventually("B's LISTEN connection", async () => {
      const { rows } = await client.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND query = $2",
        ["keydesk-replica-b", `LISTEN ${CHANGES_CHANNEL}`],
      );
      return rows[0]?.pid;
    });
  return { a, b, admin: client, listenerOfB };
}

async function createKey(replica: ServeProcess, name: string, headers?: Record<string, string>) {
  const created = await request(replica.url, {
    method: "POST",
    path: KEYS,
    authorization: OWNER,
    body: { name, permissions: ["ALL"] },
    ...(headers && { headers }),
  });
  assert.equal(created.status, 200, created.text);
  return created.json as Key;
}

const appCall = (replica: ServeProcess, key: Key) =>
  request(replica.url, { path: APPLICATIONS, authorization: `App ${key.publicApiKey}` });

async function disable(replica: ServeProcess, key: Key) {
  const disabled = await request(replica.url, {
    method: "PUT",
    path: `${KEYS}/${key.key}`,
    authorization: OWNER,
    body: { enabled: false },
  });
  assert.equal(disabled.status, 200, disabled.text);
}

/** Authorizes the key through the replica twice: the second is served from its cache. */
async function cachedOn(replica: ServeProcess, key: Key) {
  for (let i = 0; i < 2; i++) assert.equal((await appCall(replica, key)).status, 200);
}

function assertDisabled(answer: Awaited<ReturnType<typeof appCall>>) {
  assert.equal(answer.status, 403, answer.text);
  assert.match(answer.text, /is disabled/);
}

/**
 * Disables `key` through A, then `later` (cached on B too): once B refuses `later`, it has heard the
 * first commit as well (notifications come in commit order, on one connection). Answers whether
 * B's first request for `key` after that was refused, without a cache miss in between.
 */
async function disableAndWaitForB(a: ServeProcess, b: ServeProcess, key: Key, later: Key) {
  await disable(a, key);
  await disable(a, later);
  await eventually("B to refuse the key disabled after it", async () =>
    (await appCall(b, later)).status === 403 ? true : undefined,
  );
}

describe("two serve replicas on one PostgreSQL database", () => {
  test("a key disabled through A is refused by B, which had it cached, once B heard the commit", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { a, b, listenerOfB } = await twoReplicas(t);
    await listenerOfB();
    const [key, later] = [await createKey(a, "shared"), await createKey(a, "later")];
    await cachedOn(b, key);
    await cachedOn(b, later);
    await disableAndWaitForB(a, b, key, later);
    assertDisabled(await appCall(b, key));
  });

  test("with B's LISTEN connection killed, a key disabled through A is refused by B's next request", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { a, b, admin, listenerOfB } = await twoReplicas(t);
    const pid = await listenerOfB();
    const key = await createKey(a, "shared");
    await cachedOn(b, key);
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await eventually("B's listening backend to be gone", async () => {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
      return rows.length === 0 || undefined;
    });
    // B cannot hear this commit: its cache must not be what answers. No wait.
    await disable(a, key);
    assertDisabled(await appCall(b, key));

    // B listens again (a new connection), and hears commits as before.
    const again = await listenerOfB();
    assert.notEqual(again, pid);
    const [other, later] = [await createKey(a, "after the outage"), await createKey(a, "later")];
    await cachedOn(b, other);
    await cachedOn(b, later);
    await disableAndWaitForB(a, b, other, later);
    assertDisabled(await appCall(b, other));
  });

  test("a create with an Idempotency-Key retried on B answers A's first answer", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { a, b } = await twoReplicas(t);
    const headers = { "idempotency-key": "create-billing-1" };
    const first = await createKey(a, "billing", headers);
    const retried = await createKey(b, "billing", headers);
    assert.deepEqual(retried, first, "the same key, not a second one");
    const listed = await request(b.url, { path: KEYS, authorization: OWNER });
    assert.deepEqual(
      (listed.json as { apiKeys: Key[] }).apiKeys.map((key) => key.key),
      [first.key],
    );
  });

  describe("2FA", () => {
    /** An application (3 sends per number a day, 5 PIN attempts) with an ALPHANUMERIC template, made through A. */
    async function application(a: ServeProcess) {
      const made = await request(a.url, {
        method: "POST",
        path: APPLICATIONS,
        authorization: OWNER,
        body: {
          name: "login",
          configuration: { sendPinPerPhoneNumberLimit: "3/1d", pinAttempts: 5, verifyPinLimit: "1000/1s" },
        },
      });
      assert.equal(made.status, 200, made.text);
      const { applicationId } = made.json as { applicationId: string };
      const template = await request(a.url, {
        method: "POST",
        path: `${APPLICATIONS}/${applicationId}/messages`,
        authorization: OWNER,
        body: { messageText: "Your code is {{pin}}", pinType: "ALPHANUMERIC", pinLength: 10 },
      });
      assert.equal(template.status, 200, template.text);
      const { messageId } = template.json as { messageId: string };
      const send = (replica: ServeProcess, to: string) =>
        request(replica.url, {
          method: "POST",
          path: "/2fa/2/pin?ncNeeded=false",
          authorization: OWNER,
          body: { applicationId, messageId, to },
        });
      return { applicationId, send };
    }

    test("the PIN send limit is counted once across A and B: sends at once through both stop at it", async (t) => {
      if (skipWithoutPostgres(t)) return;
      const { a, b } = await twoReplicas(t);
      const { send } = await application(a);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => send(index % 2 ? b : a, "41790000001")),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429]);
      for (const refused of answers.filter((answer) => answer.status === 429))
        assert.match(refused.text, /sendPinPerPhoneNumberLimit \(3\/1d\)/);
      assert.equal((await send(b, "41790000001")).status, 429);
    });

    test("wrong PINs sent at once through A and B spend each of the PIN's attempts once", async (t) => {
      if (skipWithoutPostgres(t)) return;
      const { a, b } = await twoReplicas(t);
      const { send } = await application(a);
      const sent = await send(a, "41790000001");
      assert.equal(sent.status, 200, sent.text);
      const { pinId } = sent.json as { pinId: string };
      // Ten characters of a PIN the service draws from 36: a guess that is the PIN is not a worry.
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          request((index % 2 ? b : a).url, {
            method: "POST",
            path: `/2fa/2/pin/${pinId}/verify`,
            authorization: OWNER,
            body: { pin: "WRONGPIN00" },
          }),
        ),
      );
      const bodies = answers.map((answer) => {
        assert.equal(answer.status, 200, answer.text);
        return answer.json as { pinError?: string; attemptsRemaining: number };
      });
      assert.deepEqual(
        bodies
          .filter((body) => body.pinError === "WRONG_PIN")
          .map((body) => body.attemptsRemaining)
          .sort(),
        [0, 1, 2, 3, 4],
        "each attempt spent by one call, through whichever replica",
      );
      assert.equal(bodies.filter((body) => body.pinError === "NO_MORE_PIN_ATTEMPTS").length, 7);
      const status = await request(b.url, { path: `/2fa/2/pin/${pinId}/status`, authorization: OWNER });
      assert.equal(status.status, 200, status.text);
      assert.equal((status.json as { attemptsRemaining: number }).attemptsRemaining, 0);
    });

    test("a PIN sent and verified through A shows in B's PIN stream, once and in order", async (t) => {
      if (skipWithoutPostgres(t)) return;
      const { a, b, listenerOfB } = await twoReplicas(t);
      const { applicationId, send } = await application(a);
      await listenerOfB();
      const stream = await openEventStream(b.url, "/local/1/pins/stream", OWNER);
      t.after(() => stream.close());
      assert.equal(stream.status, 200);
      await stream.waitForComment((comment) => comment === "connected");

      const sent = await send(a, "41790000001");
      assert.equal(sent.status, 200, sent.text);
      const { pinId } = sent.json as { pinId: string };
      const captured = await stream.waitForEvent((event) => event.event === "pin");
      const pin = JSON.parse(captured.data) as { pinId: string; pin: string; text: string; to: string };
      assert.deepEqual([pin.pinId, pin.to, pin.text], [pinId, "41790000001", `Your code is ${pin.pin}`]);

      const wrong = pin.pin.startsWith("A") ? `B${pin.pin.slice(1)}` : `A${pin.pin.slice(1)}`;
      const verified = await request(a.url, {
        method: "POST",
        path: `/2fa/2/pin/${pinId}/verify`,
        authorization: OWNER,
        body: { pin: wrong },
      });
      assert.equal(verified.status, 200, verified.text);
      await stream.waitForEvent((event) => event.event === "pin-state");
      // B's own send after them: once it is in the stream, everything A committed before it is too.
      const own = await send(b, "41790000002");
      assert.equal(own.status, 200, own.text);
      const ownPinId = (own.json as { pinId: string }).pinId;
      await stream.waitForEvent((event) => event.event === "pin" && event.data.includes(ownPinId));

      const events = stream.events.map((event) => [event.event, JSON.parse(event.data)]);
      assert.deepEqual(
        events.map(([name, data]) => [name, data.pinId]),
        [
          ["pin", pinId],
          ["pin-state", pinId],
          ["pin", ownPinId],
        ],
        "each event once, in the order it was committed",
      );
      assert.deepEqual(events[1]?.[1], {
        pinId,
        applicationId,
        to: "41790000001",
        attemptsRemaining: 4,
        verified: false,
      });
    });
  });

  test("kill -9 of A during a create burst sent to both: every create answered 2xx is readable through B", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { a, b } = await twoReplicas(t);
    const answered: Key[] = [];
    let refusedByA = 0;
    let killed: Promise<unknown> | undefined;
    // Four clients, two per replica, each sending its creates one after the other; A is killed
    // once ten creates were answered, three of them by A (a replica can be the slower to start),
    // while the clients go on.
    const client = async (replica: ServeProcess, name: string) => {
      for (let i = 0; i < 15; i++) {
        try {
          const created = await request(replica.url, {
            method: "POST",
            path: KEYS,
            authorization: OWNER,
            body: { name: `${name}-${i}` },
          });
          if (created.status >= 200 && created.status < 300) answered.push(created.json as Key);
        } catch {
          refusedByA++;
        }
        const byA = answered.filter((key) => key.name.startsWith("a")).length;
        if (answered.length >= 10 && byA >= 3) killed ??= a.stop("SIGKILL");
      }
    };
    await Promise.all([client(a, "a1"), client(a, "a2"), client(b, "b1"), client(b, "b2")]);
    assert.deepEqual(await killed, { code: null, signal: "SIGKILL" });
    assert.ok(refusedByA > 0, "some creates were sent to A after it died");
    assert.ok(
      answered.some((key) => key.name.startsWith("a")),
      "A answered creates before it died",
    );
    for (const key of answered) {
      const got = await request(b.url, { path: `${KEYS}/${key.key}`, authorization: OWNER });
      assert.equal(got.status, 200, `${key.name}: ${got.text}`);
      assert.deepEqual(got.json, key);
      const found = await request(b.url, {
        path: `${KEYS}?publicApiKey=${encodeURIComponent(key.publicApiKey)}`,
        authorization: OWNER,
      });
      assert.deepEqual((found.json as { apiKeys: Key[] }).apiKeys, [key], key.name);
    }
  });
});
