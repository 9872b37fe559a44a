import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { addAccount, makeTempDir, removeDir } from "../../harness/keyServiceProcess.ts";
import { byName, eventually, linkState, outbox, PASSWORD, runLink, Side, syncKeys } from "./syncFixture.ts";

let local: Side;
let foreign: ForeignRemote;
let linkId: number;

before(async () => {
  foreign = await startForeignRemote();
  local = new Side("local", await makeTempDir("keydesk-sync-foreign-"), "owner");
  await addAccount(local.dataDir, local.username, PASSWORD);
  await local.start();
});
after(async () => {
  await local.stop();
  await foreign.close();
  await removeDir(local.dataDir);
});

const foreignByName = (name: string) => [...foreign.keys.values()].filter((key) => key.name === name);

test("a remote written from the spec alone, without Idempotency-Key, syncs both ways", async () => {
  for (const name of ["alpha", "beta", "gamma"]) {
    const key = {
      name,
      key: randomBytes(16).toString("hex").toUpperCase(),
      publicApiKey: `${name}-public-api-key-value`,
      accountKey: "F".repeat(32),
      permissions: ["ALL"],
      enabled: true,
    };
    foreign.keys.set(key.key, key);
  }
  const created = await local.ok<{ id: number }>("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { baseUrl: foreign.url, username: foreign.username, password: foreign.password },
  });
  linkId = created.id;
  const state = await runLink(local, linkId);
  assert.equal(state.lastError, null);
  const mirrored = byName(await local.keys());
  assert.equal(mirrored.get("beta")?.publicApiKey, "beta-public-api-key-value");

  await local.updateKey(mirrored.get("beta")?.key as string, { name: "beta renamed", enabled: false });
  await local.createKey({ name: "delta", allowedIPs: ["192.0.2.10"] });
  const pushed = await runLink(local, linkId);
  assert.equal(pushed.pending, 0, pushed.lastError ?? "");
  assert.equal(foreignByName("beta renamed")[0]?.enabled, false);
  assert.deepEqual(foreignByName("delta")[0]?.allowedIPs, ["192.0.2.10"]);
  const delta = byName(await local.keys()).get("delta");
  assert.equal(delta?.publicApiKey, foreignByName("delta")[0]?.publicApiKey);
  assert.match(foreignByName("delta")[0]?.key ?? "", /^key_/, "the remote spells its ids its own way");
  assert.match(delta?.key ?? "", /^[0-9A-F]{32}$/, "the local key keeps a local id");
});

test("a lost create answer on a remote without Idempotency-Key: the key is found by name, not created twice", async () => {
  foreign.loseNextCreateAnswer();
  const created = await local.createKey({ name: "epsilon", permissions: ["TFA"] });
  const failed = await runLink(local, linkId);
  assert.equal(failed.state, "backing-off");
  assert.equal(foreignByName("epsilon").length, 1);
  const synced = await runLink(local, linkId);
  assert.equal(synced.pending, 0, synced.lastError ?? "");
  assert.equal(foreignByName("epsilon").length, 1, "not created a second time");
  const local2 = (await local.keys()).find((key) => key.key === created.key);
  assert.equal(local2?.publicApiKey, foreignByName("epsilon")[0]?.publicApiKey);
});

test("when the remote's list lags behind, the retried create first looks its key up by name", async () => {
  foreign.loseNextCreateAnswer();
  foreign.lagging.add("zeta");
  await local.createKey({ name: "zeta" });
  await runLink(local, linkId);
  assert.equal(foreignByName("zeta").length, 1);
  const synced = await runLink(local, linkId);
  assert.equal(synced.pending, 0, synced.lastError ?? "");
  assert.ok(foreign.seen.includes("GET /settings/1/accounts/_/api-keys?name=zeta"), "looked up by name");
  assert.equal(foreignByName("zeta").length, 1, "not created a second time");
  foreign.lagging.clear();
});

test("a key that disappears from the remote is flagged, never deleted", async () => {
  const [gamma] = foreignByName("gamma");
  assert.ok(gamma);
  foreign.keys.delete(gamma.key);
  const state = await runLink(local, linkId);
  assert.equal(state.remoteMissing, 1);
  const localGamma = byName(await local.keys()).get("gamma");
  assert.ok(localGamma, "the local copy is kept");
  const flagged = (await syncKeys(local, linkId)).find((key) => key.key === localGamma.key);
  assert.equal(flagged?.state, "remote-missing");

  await local.updateKey(localGamma.key, { name: "gamma edited" });
  await runLink(local, linkId);
  const [entry] = (await outbox(local, linkId)).filter((candidate) => candidate.key === localGamma.key);
  assert.equal(entry?.failed, true);
  assert.match(entry?.lastError ?? "", /no longer has key/);
  const discarded = await local.call("DELETE", `/local/1/sync/links/${linkId}/outbox/${entry?.id}`);
  assert.equal(discarded.status, 204);
});

test("one refused change does not block the others; it can be retried", async () => {
  const keys = byName(await local.keys());
  const alpha = keys.get("alpha");
  const delta = keys.get("delta");
  assert.ok(alpha && delta);
  const alphaRemote =
    alpha.publicApiKey === foreignByName("alpha")[0]?.publicApiKey ? foreignByName("alpha")[0] : undefined;
  assert.ok(alphaRemote);
  foreign.fail({ method: "PUT", path: new RegExp(`${alphaRemote.key}$`), status: 400 });
  await local.updateKey(alpha.key, { name: "alpha refused" });
  await local.updateKey(delta.key, { name: "delta accepted" });
  const state = await runLink(local, linkId);
  assert.equal(state.failed, 1);
  assert.equal(foreignByName("delta accepted").length, 1, "the unrelated change went out");
  assert.equal(foreignByName("alpha refused").length, 0);
  const refused = (await outbox(local, linkId)).find((entry) => entry.key === alpha.key);
  assert.ok(refused?.failed);
  assert.match(refused.lastError ?? "", /update refused/);

  await local.ok("POST", `/local/1/sync/links/${linkId}/outbox/${refused.id}/retry`);
  const retried = await runLink(local, linkId);
  assert.equal(retried.failed, 0);
  assert.equal(retried.pending, 0);
  assert.equal(foreignByName("alpha refused").length, 1);
});

test("sync now during a run waits for it and runs again, so it sees what changed meanwhile", async () => {
  foreign.listDelayMs = 800;
  const first = runLink(local, linkId);
  await eventually("the first run to be under way", async () =>
    (await linkState(local, linkId)).state === "running" ? true : undefined,
  );
  const key = {
    name: "added during a run",
    key: randomBytes(16).toString("hex").toUpperCase(),
    publicApiKey: "added-during-a-run-public-api-key",
    accountKey: "F".repeat(32),
    permissions: ["ALL"],
    enabled: true,
  };
  foreign.keys.set(key.key, key);
  const second = await runLink(local, linkId);
  foreign.listDelayMs = 0;
  await first;
  assert.equal(second.lastError, null);
  assert.ok(byName(await local.keys()).has("added during a run"), "the second run pulled it");
});

test("a refused create holds its key's later changes; retried, it goes out with them", async () => {
  foreign.fail({ method: "POST", status: 400 });
  const created = await local.createKey({ name: "eta" });
  await local.updateKey(created.key, { enabled: false });
  const refused = await runLink(local, linkId);
  assert.equal(refused.failed, 2, "the create and the update after it");
  const entries = (await outbox(local, linkId)).filter((entry) => entry.key === created.key);
  assert.deepEqual(
    entries.map((entry) => [entry.kind, entry.failed]),
    [
      ["create", true],
      ["update", true],
    ],
  );
  assert.equal(foreignByName("eta").length, 0);
  await local.ok("POST", `/local/1/sync/links/${linkId}/outbox/${entries[0]?.id}/retry`);
  const retried = await runLink(local, linkId);
  assert.equal(retried.failed, 0);
  assert.equal(retried.pending, 0);
  assert.equal(foreignByName("eta")[0]?.enabled, false, "created, then disabled as here");
});

test("429 backs off for at least the remote's Retry-After", async () => {
  foreign.fail({ method: "GET", status: 429, headers: { "retry-after": "30" } });
  const before = Date.now();
  const state = await runLink(local, linkId);
  assert.equal(state.state, "backing-off");
  assert.match(state.lastError ?? "", /throttles/);
  const next = Date.parse(state.nextRunAt ?? "");
  assert.ok(next - before >= 29_000, `next run in ${next - before} ms`);
  const recovered = await runLink(local, linkId);
  assert.equal(recovered.state, "idle", "sync now does not wait for the backoff");
});

test("401 pauses the link and asks for credentials; new credentials resume it", async () => {
  foreign.password = "rotated password";
  const paused = await runLink(local, linkId);
  assert.equal(paused.state, "paused");
  assert.equal(paused.pausedReason, "credentials");
  assert.match(paused.lastError ?? "", /credentials/);
  assert.equal(paused.nextRunAt, null);

  await local.createKey({ name: "made while paused" });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(foreignByName("made while paused").length, 0, "a paused link sends nothing");
  const requestsWhilePaused = foreign.seen.length;

  await local.ok("PUT", `/local/1/sync/links/${linkId}`, {
    remote: { username: foreign.username, password: "rotated password" },
  });
  await eventually("the resumed link to push", async () =>
    foreignByName("made while paused").length === 1 ? true : undefined,
  );
  assert.ok(foreign.seen.length > requestsWhilePaused);
  const state = await linkState(local, linkId);
  assert.equal(state.pausedReason, null);
  const answer = await local.call("GET", `/local/1/sync/links/${linkId}`);
  assert.doesNotMatch(answer.text, /rotated password/, "the password is never answered");
});

test("stopping the service during a run waits for no slow remote: its requests are aborted", async () => {
  foreign.listDelayMs = 60_000;
  const pending = local.call("POST", `/local/1/sync/links/${linkId}/run`).catch(() => undefined);
  await eventually("the run to be under way", async () =>
    (await linkState(local, linkId)).state === "running" ? true : undefined,
  );
  const serving = local.process;
  assert.ok(serving);
  const started = Date.now();
  const exit = await serving.stop("SIGTERM");
  local.process = undefined;
  const took = Date.now() - started;
  foreign.listDelayMs = 0;
  await pending;
  assert.equal(exit.code, 0, serving.stderr());
  assert.ok(took < 5_000, `stopped in ${took} ms, not after the remote's 60 s`);
  await local.start();
  const state = await runLink(local, linkId);
  assert.equal(state.lastError, null, "the next run goes through");
});
