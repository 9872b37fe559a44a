import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, beforeEach, test } from "node:test";
import { KeyServiceClient } from "../../../../electron/client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../../electron/client/serviceCallFailure.ts";
import { SyncClient } from "../../../../electron/client/syncClient.ts";
import type { SyncLinkDto } from "../../../../shared/sync.ts";

/**
 * The sync client against a scripted server: the contract's paths and methods, bodies sent,
 * answers checked (204 without a body; anything not the contract's shape is refused), the
 * service's error body kept. (Against the real service: test/integration/main/sync.test.ts.)
 */

interface Seen {
  method: string;
  url: string;
  body: string;
  contentType: string | undefined;
}
let answer: { status: number; body?: unknown; raw?: string } = { status: 200 };
const seen: Seen[] = [];
let server: Server;
let sync: SyncClient;

const LINK: SyncLinkDto = {
  id: 7,
  accountKey: "FEDCBA9876543210FEDCBA9876543210",
  remote: { baseUrl: "http://127.0.0.1:9/", username: "alice", accountKey: "_" },
  intervalSeconds: 300,
  state: "idle",
  pausedReason: null,
  progress: null,
  lastAttemptAt: null,
  lastSuccessAt: null,
  lastError: null,
  nextRunAt: "2026-06-15T12:05:00.000+0000",
  pending: 0,
  failed: 0,
  conflicts: 0,
  remoteMissing: 0,
  linkedKeys: 0,
  recentRuns: [],
};
const KEY = "0123456789ABCDEF0123456789ABCDEF";

before(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        body,
        contentType: request.headers["content-type"],
      });
      if (answer.status === 204) {
        response.writeHead(204);
        response.end();
        return;
      }
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(answer.raw ?? JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  sync = new SyncClient(
    new KeyServiceClient({ baseUrl: `http://127.0.0.1:${port}`, username: "owner", password: "pw" }),
  );
});
after(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen.length = 0;
});

test("links, create, update, run and remove use the contract's paths and methods", async () => {
  answer = { status: 200, body: { links: [LINK] } };
  assert.deepEqual(await sync.links(), [LINK]);
  answer = { status: 200, body: LINK };
  const request = {
    accountKey: "_",
    remote: { baseUrl: "http://127.0.0.1:9", username: "alice", password: "secret", accountKey: "_" },
    intervalSeconds: 60,
  };
  assert.deepEqual(await sync.createLink(request), LINK);
  assert.deepEqual(await sync.updateLink(7, { paused: true }), LINK);
  assert.deepEqual(await sync.run(7), LINK);
  answer = { status: 204 };
  assert.equal(await sync.removeLink(7), undefined);
  assert.deepEqual(
    seen.map((each) => `${each.method} ${each.url}`),
    [
      "GET /local/1/sync/links",
      "POST /local/1/sync/links",
      "PUT /local/1/sync/links/7",
      "POST /local/1/sync/links/7/run",
      "DELETE /local/1/sync/links/7",
    ],
  );
  assert.deepEqual(JSON.parse(seen[1]?.body ?? ""), request);
  assert.equal(seen[1]?.contentType, "application/json");
  assert.deepEqual(JSON.parse(seen[2]?.body ?? ""), { paused: true });
  assert.equal(seen[3]?.body, "", "a run is a POST without a body");
});

test("keys, resolve and the outbox use the contract's paths; discard answers nothing", async () => {
  const syncKey = {
    key: KEY,
    name: "billing",
    remoteKey: "ABCDEF0123456789ABCDEF0123456789",
    state: "conflict",
    conflicts: [
      {
        field: "name",
        mine: "billing",
        theirs: "billing (team)",
        mineChange: { by: "owner", at: "2026-06-15T11:00:00.000+0000" },
        theirsChange: {
          seenAt: "2026-06-15T12:00:00.000+0000",
          by: "team",
          at: "2026-06-15T11:30:00.000+0000",
        },
      },
    ],
    pendingFields: [],
    error: null,
  };
  const entry = {
    id: 3,
    key: KEY,
    kind: "update",
    fields: ["name"],
    heldFields: [],
    attempts: 2,
    failed: true,
    lastError: "the remote refused it",
    createdAt: "2026-06-15T12:00:00.000+0000",
  };
  answer = { status: 200, body: { keys: [syncKey] } };
  assert.deepEqual(await sync.keys(7), [syncKey]);
  answer = { status: 200, body: syncKey };
  assert.deepEqual(await sync.resolve(7, KEY, { field: "name", take: "theirs" }), syncKey);
  answer = { status: 200, body: { entries: [entry] } };
  assert.deepEqual(await sync.outbox(7), [entry]);
  answer = { status: 200, body: { ...entry, failed: false } };
  assert.equal((await sync.retryEntry(7, 3)).failed, false);
  answer = { status: 204 };
  assert.equal(await sync.discardEntry(7, 3), undefined);
  assert.deepEqual(
    seen.map((each) => `${each.method} ${each.url}`),
    [
      "GET /local/1/sync/links/7/keys",
      `POST /local/1/sync/links/7/keys/${KEY}/resolve`,
      "GET /local/1/sync/links/7/outbox",
      "POST /local/1/sync/links/7/outbox/3/retry",
      "DELETE /local/1/sync/links/7/outbox/3",
    ],
  );
  assert.deepEqual(JSON.parse(seen[1]?.body ?? ""), { field: "name", take: "theirs" });
});

test("local-only keys: a page with limit and cursor, and a push of some or all", async () => {
  const page = { count: 2, keys: [{ key: KEY, name: "billing", enabled: false }], nextCursor: "41" };
  answer = { status: 200, body: page };
  assert.deepEqual(await sync.localOnly(7, { limit: 1 }), page);
  assert.deepEqual(await sync.localOnly(7, { limit: 1, cursor: "41" }), page);
  answer = { status: 200, body: { queued: 1 } };
  assert.equal(await sync.pushLocalOnly(7, { keys: [KEY] }), 1);
  assert.equal(await sync.pushLocalOnly(7, { all: true }), 1);
  assert.deepEqual(
    seen.map((each) => `${each.method} ${each.url}`),
    [
      "GET /local/1/sync/links/7/local-only?limit=1",
      "GET /local/1/sync/links/7/local-only?limit=1&cursor=41",
      "POST /local/1/sync/links/7/local-only/push",
      "POST /local/1/sync/links/7/local-only/push",
    ],
  );
  assert.deepEqual(JSON.parse(seen[2]?.body ?? ""), { keys: [KEY] });
  assert.deepEqual(JSON.parse(seen[3]?.body ?? ""), { all: true });
});

test("the service's error body comes back as a ServiceCallFailure with its messageId and status", async () => {
  answer = {
    status: 409,
    body: {
      requestError: {
        serviceException: { messageId: "CONFLICT", text: "the account is already linked (link 7)" },
      },
    },
  };
  await assert.rejects(
    sync.createLink({
      accountKey: "_",
      remote: { baseUrl: "http://127.0.0.1:9", username: "a", password: "b" },
    }),
    (error: unknown) =>
      error instanceof ServiceCallFailure &&
      error.status === 409 &&
      error.messageId === "CONFLICT" &&
      /already linked/.test(error.text),
  );
});

test("an answer that is not the contract's shape is refused, also for a route that answers nothing", async () => {
  answer = { status: 200, body: { links: [{ ...LINK, state: "sleeping" }] } };
  await assert.rejects(
    sync.links(),
    (error: unknown) => error instanceof ServiceCallFailure && error.messageId === "GENERAL_ERROR",
  );
  answer = { status: 200, body: { ...LINK, password: "never answered" } };
  const link = await sync.link(7);
  assert.equal("password" in link, false, "unknown fields are dropped");
  answer = { status: 404, raw: "<h1>no such route</h1>" };
  await assert.rejects(
    sync.removeLink(7),
    (error: unknown) =>
      error instanceof ServiceCallFailure && error.status === 404 && error.messageId === "GENERAL_ERROR",
  );
});
