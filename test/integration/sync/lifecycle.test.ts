import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request } from "../../harness/keyServiceProcess.ts";
import type { ApiKey } from "../service/serviceFixture.ts";
import { type LossyProxy, startLossyProxy } from "./lossyProxy.ts";
import { byName, link, linkState, outbox, runLink, type SyncPair, startPair } from "./syncFixture.ts";

/**
 * The key lifecycle through a link, with the remote behind a proxy that sees every request:
 * - a key disabled here is created on the remote so that it authorizes nothing until the update
 *   that disables it lands (the API's create cannot set `enabled`, so the create opens no window,
 *   validFrom 9999-12-31, and the update sets enabled=false and the true window); the proxy cuts
 *   that update before it reaches the remote (the remote went away between the two calls);
 * - a rotation and a bulk disable made here are plain creates and updates, and sync as such;
 * - every request says `Keydesk-Client: sync`.
 */

let pair: SyncPair;
let proxy: LossyProxy;
let linkId: number;
before(async () => {
  pair = await startPair();
  proxy = await startLossyProxy(pair.remote.url);
  linkId = (await link(pair.local, proxy.url)).id;
  await runLink(pair.local, linkId);
});
after(async () => {
  await proxy.close();
  await pair.close();
});

const appCall = (baseUrl: string, publicApiKey: string) =>
  request(baseUrl, { path: "/2fa/2/applications", authorization: `App ${publicApiKey}` });

type AuditEntry = { key: string | null; action: string; reason: string | null; channel: string };

const isKeyUpdate = (method: string, path: string) => method === "PUT" && path.includes("/api-keys/");

test("a disabled key's remote copy authorizes nothing while the update that disables it cannot land, and a later run corrects it", async () => {
  const { local, remote } = pair;
  await local.ok("PUT", `/local/1/sync/links/${linkId}`, { paused: true });
  const made = await local.createKey({
    name: "disabled before its push",
    validFrom: "2026-01-01T00:00:00.000+0000",
    validTo: "2031-01-01T00:00:00.000+0000",
  });
  await local.updateKey(made.key, { enabled: false });
  proxy.cutBefore = isKeyUpdate;
  await local.ok("PUT", `/local/1/sync/links/${linkId}`, { paused: false });
  const failed = await runLink(local, linkId);
  assert.equal(failed.state, "backing-off", JSON.stringify(failed));

  const there = byName(await remote.keys()).get(made.name);
  assert.ok(there, "the create reached the remote");
  assert.equal(there.validFrom, "9999-12-31T00:00:00.000+0000", "created with a window that never opens");
  assert.equal(there.validTo, undefined);
  const here = byName(await local.keys()).get(made.name);
  assert.equal(here?.publicApiKey, there.publicApiKey, "the local key took the remote's publicApiKey");
  const refused = await appCall(remote.url, there.publicApiKey);
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.text, /not valid yet: its validFrom is/);
  assert.deepEqual(
    (await outbox(local, linkId)).map((entry) => [entry.kind, [...entry.fields].sort()]),
    [["update", ["enabled", "validFrom", "validTo"]]],
    "the update waits in the outbox",
  );

  proxy.cutBefore = () => false;
  const synced = await runLink(local, linkId);
  assert.equal(synced.lastError, null, JSON.stringify(synced));
  assert.equal(synced.pending, 0);
  const corrected = byName(await remote.keys()).get(made.name);
  assert.equal(corrected?.enabled, false);
  assert.equal(corrected?.validFrom, "2026-01-01T00:00:00.000+0000");
  assert.equal(corrected?.validTo, "2031-01-01T00:00:00.000+0000");
  assert.equal((await linkState(local, linkId)).conflicts, 0);
});

test("an enabled key is created with its own window, in one call", async () => {
  const { local, remote } = pair;
  const before = proxy.seen.length;
  await local.createKey({ name: "enabled from the start", validTo: "2031-01-01T00:00:00.000+0000" });
  await runLink(local, linkId);
  const there = byName(await remote.keys()).get("enabled from the start");
  assert.equal(there?.validFrom, undefined);
  assert.equal(there?.validTo, "2031-01-01T00:00:00.000+0000");
  assert.equal(proxy.seen.slice(before).filter((seen) => seen.startsWith("PUT")).length, 0, "no update");
});

test("a rotation and a bulk disable made here go to the remote like any change, and its audit says which they were", async () => {
  const { local, remote } = pair;
  const old = await local.createKey({ name: "gateway", allowedIPs: ["192.0.2.0/24"] });
  const other = await local.createKey({ name: "batch job" });
  await runLink(local, linkId);
  // As the desktop does them: each call of a roll says `rotate`, each update of a bulk change `bulk`.
  const write = async (method: string, path: string, body: unknown, action: string) => {
    const answer = await local.call<ApiKey>(method, path, body, { "keydesk-action": action });
    assert.equal(answer.status, 200, answer.text);
    return answer.json;
  };
  const keys = "/settings/1/accounts/_/api-keys";
  // The roll: the successor, then the old key's validTo shortened to the end of the grace period.
  const successor = await write(
    "POST",
    keys,
    { name: "gateway (rolled)", allowedIPs: ["192.0.2.0/24"] },
    "rotate",
  );
  await write("PUT", `${keys}/${old.key}`, { validTo: "2030-06-01T12:00:00.000+0000" }, "rotate");
  // The bulk disable: one update per key.
  for (const key of [successor, other]) await write("PUT", `${keys}/${key.key}`, { enabled: false }, "bulk");
  const state = await runLink(local, linkId);
  assert.equal(state.lastError, null, JSON.stringify(state));
  assert.equal(state.pending, 0);
  const there = byName(await remote.keys());
  assert.equal(there.get("gateway")?.validTo, "2030-06-01T12:00:00.000+0000");
  assert.equal(there.get("gateway (rolled)")?.enabled, false);
  assert.deepEqual(there.get("gateway (rolled)")?.allowedIPs, ["192.0.2.0/24"]);
  assert.equal(there.get("batch job")?.enabled, false);

  // The remote's own audit: the changes arrived through sync, as a rotation and a bulk change.
  const audit = await remote.ok<{ entries: AuditEntry[] }>("GET", "/local/1/audit?limit=100");
  const of = (name: string) => {
    const key = there.get(name)?.key;
    return audit.entries
      .filter((entry) => entry.key === key)
      .map(({ action, reason, channel }) => ({ action, reason, channel }));
  };
  assert.deepEqual(of("gateway").slice(0, 1), [{ action: "rotate", reason: "rotate", channel: "sync" }]);
  // Newest first: the bulk disable (folded into the update that follows the create), then the create.
  const rolled = of("gateway (rolled)");
  assert.deepEqual(rolled[0], { action: "disable", reason: "bulk", channel: "sync" }, JSON.stringify(rolled));
  assert.deepEqual(
    rolled.at(-1),
    { action: "rotate", reason: "rotate", channel: "sync" },
    JSON.stringify(rolled),
  );
  assert.deepEqual(of("batch job")[0], { action: "disable", reason: "bulk", channel: "sync" });
});

test("every call the engine makes to the remote says Keydesk-Client: sync", () => {
  assert.ok(proxy.seen.length > 5, proxy.seen.join("\n"));
  assert.deepEqual(
    proxy.seen.filter((_, index) => proxy.clients[index] !== "sync"),
    [],
    "calls without the header",
  );
});
