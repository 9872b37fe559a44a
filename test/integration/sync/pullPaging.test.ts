import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { SyncLinkDto, SyncProgressDto } from "../../../shared/sync.ts";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { addAccount, makeTempDir, removeDir } from "../../harness/keyServiceProcess.ts";
import { type PagingProxy, startPagingProxy } from "./pagingProxy.ts";
import {
  byName,
  comparable,
  link,
  linkState,
  PASSWORD,
  runLink,
  Side,
  type SyncPair,
  startPair,
  syncKeys,
} from "./syncFixture.ts";

/**
 * Issue 12: the pull reads the remote's key list page by page when the remote pages (a Keydesk
 * service), merging each page as it comes, and still reads a remote that answers everything at
 * once. Real `serve` processes; a recording proxy between them (pagingProxy.ts) asks the remote
 * for pages of 100 instead of the engine's 1,000, and lets a test act between pages.
 */

let pair: SyncPair;
let proxy: PagingProxy;
/** A second local service for the remotes that are not Keydesk (one link per account). */
let other: Side;
let foreign: ForeignRemote;
const stubs: http.Server[] = [];

before(async () => {
  pair = await startPair();
  proxy = await startPagingProxy(pair.remote.url);
  proxy.pageSize = 100;
  other = new Side("other local", await makeTempDir("keydesk-sync-paging-"), "owner");
  await addAccount(other.dataDir, other.username, PASSWORD);
  await other.start();
  foreign = await startForeignRemote();
});
after(async () => {
  await proxy.close();
  await pair.close();
  await other.stop();
  await removeDir(other.dataDir);
  await foreign.close();
  for (const stub of stubs) {
    stub.closeAllConnections();
    stub.close();
  }
});

const REMOTE_KEYS = 2500;
let linkId: number;

test("our service as the remote: 2,500 keys are read in pages and all mirrored; progress counts pages against the remote's count", async () => {
  const { local, remote } = pair;
  await remote.createKeys(REMOTE_KEYS);

  // While the third page of the first run (the one a new link starts) is on its way, the link
  // shows what the first two brought.
  let progressAtThirdPage: SyncProgressDto | null | undefined;
  proxy.beforeForward = async (method, url) => {
    if (method === "GET" && url.pathname.endsWith("/api-keys") && proxy.listRequests().length === 3) {
      progressAtThirdPage = (await linkState(local, linkId)).progress;
    }
  };
  // Without the link's check of the remote: these tests count the list requests of runs.
  linkId = (await link(local, proxy.url, { check: false })).id;
  const state = await runLink(local, linkId);
  proxy.beforeForward = () => undefined;
  assert.equal(state.lastError, null);
  assert.equal(state.linkedKeys, REMOTE_KEYS);
  assert.deepEqual(progressAtThirdPage, { phase: "pull", done: 200, total: REMOTE_KEYS });

  // One run on its own (the link is idle now): its requests.
  proxy.seen.length = 0;
  assert.equal((await runLink(local, linkId)).lastError, null);
  const lists = proxy.listRequests();
  assert.equal(lists.length, REMOTE_KEYS / 100, "one request per page of 100, none after the last");
  assert.equal(lists[0]?.searchParams.get("limit"), "1000", "the engine asks for pages of 1,000");
  assert.equal(lists[0]?.searchParams.has("cursor"), false);
  const cursors = lists.slice(1).map((url) => url.searchParams.get("cursor"));
  assert.ok(
    cursors.every((cursor) => cursor),
    "every later page follows the nextCursor of the one before",
  );
  assert.equal(new Set(cursors).size, cursors.length, "no page asked twice");
  assert.ok(
    proxy.seen.some((line) => line.startsWith("GET /local/1/accounts/_/api-keys/count")),
    "the count route gives the total",
  );

  const remoteKeys = await remote.keys();
  const mirrored = byName(await local.keys());
  assert.equal(mirrored.size, REMOTE_KEYS);
  for (const key of remoteKeys) {
    assert.deepEqual(comparable(mirrored.get(key.name) as never), comparable(key), `key ${key.name}`);
  }
  assert.deepEqual(await syncKeys(local, linkId), [], "nothing pending, conflicting or missing");
});

test("remote-missing is flagged from every page together, and a failed page leaves the flags as they were", async () => {
  const { local } = pair;
  // The remote stops listing one key of the first page and one of the last (as if removed there).
  const remoteKeys = await pair.remote.keys();
  const gone = [remoteKeys[5], remoteKeys[REMOTE_KEYS - 5]].map((key) => key?.key as string);
  proxy.rewriteAnswer = (method, url, json) => {
    if (method !== "GET" || !url.pathname.endsWith("/api-keys")) return json;
    const page = json as { apiKeys: { key: string }[] };
    return { ...page, apiKeys: page.apiKeys.filter((key) => !gone.includes(key.key)) };
  };
  const flagged = await runLink(local, linkId);
  assert.equal(flagged.lastError, null);
  const missing = (await syncKeys(local, linkId)).filter((key) => key.state === "remote-missing");
  assert.deepEqual(missing.map((key) => key.remoteKey).sort(), [...gone].sort(), "exactly the unlisted keys");

  // Page 3's cursor is refused by the remote (400): the run fails and flags nothing new, clears nothing.
  proxy.rewriteAnswer = undefined;
  const before = proxy.listRequests().length;
  proxy.rewriteQuery = (method, url) => {
    const third = proxy.listRequests().length - before === 3;
    if (method === "GET" && url.searchParams.has("cursor") && third)
      url.searchParams.set("cursor", "not-a-cursor");
  };
  const failed = await runLink(local, linkId);
  proxy.rewriteQuery = () => undefined;
  assert.equal(proxy.listRequests().length - before, 3, "the run stopped at the refused page");
  assert.match(failed.lastError ?? "", /page 3 of the remote's key list failed after 200 keys \(HTTP 400/);
  assert.equal(failed.state, "backing-off");
  // The key of page 1 was listed again (its flag cleared); the one of the last page, never reached, stays
  // flagged; and none of the 2,300 keys of the pages not read is flagged.
  const stillMissing = (await syncKeys(local, linkId)).filter((key) => key.state === "remote-missing");
  assert.deepEqual(
    stillMissing.map((key) => key.remoteKey),
    [gone[1]],
    "a pull that did not read every page flags nothing",
  );

  // Listed again: the flags clear.
  const cleared = await runLink(local, linkId);
  assert.equal(cleared.lastError, null);
  assert.deepEqual(await syncKeys(local, linkId), []);
});

test("keys created on the remote between two pages are mirrored, by this run or the next", async () => {
  const { local, remote } = pair;
  const created: string[] = [];
  let listRequests = 0;
  proxy.beforeForward = async (method, url) => {
    if (method !== "GET" || !url.pathname.endsWith("/api-keys")) return;
    listRequests += 1;
    if (listRequests === 2 || listRequests === 10) {
      const batch = await remote.createKeys(30, (i) => `between pages ${listRequests}-${i}`);
      created.push(...batch.map((key) => key.name));
    }
  };
  const first = await runLink(local, linkId);
  proxy.beforeForward = () => undefined;
  assert.equal(first.lastError, null);
  assert.equal(created.length, 60, "keys were created while the pull was between pages");
  await runLink(local, linkId);
  const mirrored = byName(await local.keys());
  for (const name of created) assert.ok(mirrored.has(name), `${name} mirrored`);
  assert.equal(mirrored.size, REMOTE_KEYS + 60);
  assert.equal((await linkState(local, linkId)).linkedKeys, REMOTE_KEYS + 60);
  assert.deepEqual(await syncKeys(local, linkId), [], "none lost, none flagged");
});

test("a remote that ignores paging (answers its whole list) is read in one request, as before", async (t) => {
  for (let i = 0; i < 1500; i++) {
    const key = {
      name: `foreign ${i}`,
      key: randomBytes(16).toString("hex").toUpperCase(),
      publicApiKey: `foreign-${i}-${randomBytes(8).toString("hex")}`,
      accountKey: "F".repeat(32),
      permissions: ["ALL"],
      enabled: true,
    };
    foreign.keys.set(key.key, key);
  }
  const created = await other.ok<SyncLinkDto>("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { baseUrl: foreign.url, username: foreign.username, password: foreign.password },
    intervalSeconds: 3600,
    check: false, // the test counts the list requests of runs
  });
  t.after(() => other.call("DELETE", `/local/1/sync/links/${created.id}`));
  const state = await runLink(other, created.id);
  assert.equal(state.lastError, null);
  assert.equal(state.linkedKeys, 1500);
  const lists = foreign.seen.filter((line) => /^GET \/settings\/1\/accounts\/_\/api-keys(\?|$)/.test(line));
  // A new link runs at once, and Sync now then runs again: one request per run, the whole list.
  assert.ok(lists.length >= 1);
  for (const line of lists)
    assert.equal(line, "GET /settings/1/accounts/_/api-keys?limit=1000&include=created");
  assert.ok(!foreign.seen.some((line) => line.includes("/count")), "no count asked: the list said it all");
  assert.equal((await other.keys()).length, 1500);

  const [dropped] = foreign.keys.keys();
  foreign.keys.delete(dropped as string);
  const again = await runLink(other, created.id);
  assert.equal(again.lastError, null);
  const missing = (await syncKeys(other, created.id)).filter((key) => key.state === "remote-missing");
  assert.deepEqual(
    missing.map((key) => key.remoteKey),
    [dropped],
  );
});

/**
 * A remote that pages in a loop: its second page hands back the cursor it already gave, or (in
 * `fresh` mode) always a new cursor with keys it already listed. Counts its list requests.
 */
async function startLoopingRemote(mode: "repeat" | "fresh") {
  const key = (i: number) => ({
    name: `looping ${i}`,
    key: `${mode === "repeat" ? "A" : "B"}${String(i).padStart(31, "0")}`,
    publicApiKey: `looping-${mode}-${i}-public-api-key`,
    accountKey: "E".repeat(32),
    permissions: ["ALL"],
    enabled: true,
  });
  const state = { url: "", lists: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    res.setHeader("content-type", "application/json");
    if (!url.pathname.endsWith("/api-keys")) {
      res.writeHead(404);
      res.end(
        JSON.stringify({
          requestError: { serviceException: { messageId: "NOT_FOUND", text: "no such route" } },
        }),
      );
      return;
    }
    state.lists += 1;
    const cursor = url.searchParams.get("cursor");
    const nextCursor = mode === "repeat" ? "c1" : `c${state.lists}`;
    const keys = cursor === null ? [key(1), key(2)] : [key(3)];
    res.end(JSON.stringify({ apiKeys: keys, nextCursor }));
  });
  stubs.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

for (const mode of ["repeat", "fresh"] as const) {
  test(`a remote that pages in a loop (${mode === "repeat" ? "a cursor given twice" : "fresh cursors, no new keys"}) ends the run with an error`, async (t) => {
    const stub = await startLoopingRemote(mode);
    const created = await other.ok<SyncLinkDto>("POST", "/local/1/sync/links", {
      accountKey: "_",
      remote: { baseUrl: stub.url, username: "someone", password: "whatever" },
      intervalSeconds: 3600,
      check: false, // the stub answers key lists only
    });
    t.after(() => other.call("DELETE", `/local/1/sync/links/${created.id}`));
    const started = Date.now();
    const state = await runLink(other, created.id);
    assert.ok(Date.now() - started < 5_000, "the run ended at once");
    assert.match(state.lastError ?? "", /pages in a loop/);
    assert.equal(state.state, "backing-off");
    assert.ok(stub.lists <= 10, `${stub.lists} list requests`);
    const missing = (await syncKeys(other, created.id)).filter((key) => key.state === "remote-missing");
    assert.deepEqual(missing, [], "nothing flagged by a pull that did not end");
  });
}
