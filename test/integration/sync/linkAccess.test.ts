import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SyncLinkDto } from "../../../shared/sync.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Issue 11: who may link where (finding 2, `--sync-remote-allow`) and what a link tells a
 * sub-account about accounts it cannot see (finding 10). Real `serve` processes on loopback.
 */

const PASSWORD = "correct horse battery";
const owner = basic("owner", PASSWORD);
const sub = basic("sub", PASSWORD);

let dataDir: string;
let ownerAccountKey: string;
let team: ServeProcess;

before(async () => {
  dataDir = await makeTempDir("keydesk-sync-access-");
  ownerAccountKey = await addAccount(dataDir, "owner", PASSWORD);
  await addAccount(dataDir, "sub", PASSWORD, "owner");
  // A shared team server that may link only to its own /allowed path prefix on one origin
  // (given through the variable, comma-separated, as a container would).
  team = await startServe({
    dataDir,
    env: { KEY_SERVICE_SYNC_REMOTE_ALLOW: "http://127.0.0.2:9/allowed, https://keys.example.com" },
  });
});
after(async () => {
  await team.stop();
  await removeDir(dataDir);
});

const call = async <T>(authorization: string, method: string, path: string, body?: unknown) => {
  const res = await request(team.url, { method, path, authorization, ...(body !== undefined && { body }) });
  return { status: res.status, json: res.json as T, text: res.text };
};

const linkTo = (authorization: string, baseUrl: string, username = "someone") =>
  call<SyncLinkDto>(authorization, "POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { baseUrl, username, password: PASSWORD },
    intervalSeconds: 3600,
    check: false, // these remotes are not there: the allow-list is what is tested
  });

test("with --sync-remote-allow, links to other remotes are refused with 403; matching ones are made", async () => {
  for (const baseUrl of [
    "http://127.0.0.1:9/allowed", // another host
    "http://127.0.0.2:9", // the origin, outside the prefix
    "http://127.0.0.2:9/allowed-elsewhere", // not a whole path segment
    "http://keys.example.com", // another scheme
  ]) {
    const refused = await linkTo(owner, baseUrl);
    assert.equal(refused.status, 403, `${baseUrl}: ${refused.text}`);
    assert.match(refused.text, /FORBIDDEN/);
    assert.match(refused.text, /--sync-remote-allow/);
  }
  const made = await linkTo(owner, "http://127.0.0.2:9/allowed/v1");
  assert.equal(made.status, 200, made.text);
  const moved = await call(owner, "PUT", `/local/1/sync/links/${made.json.id}`, {
    remote: { baseUrl: "http://127.0.0.1:9", username: "someone", password: PASSWORD },
  });
  assert.equal(moved.status, 403, moved.text);
  const kept = await call<SyncLinkDto>(owner, "GET", `/local/1/sync/links/${made.json.id}`);
  assert.equal(
    kept.json.remote.baseUrl,
    "http://127.0.0.2:9/allowed/v1",
    "the refused change was not stored",
  );
  const other = await call(owner, "PUT", `/local/1/sync/links/${made.json.id}`, {
    remote: { baseUrl: "HTTPS://KEYS.example.com:443/team", username: "someone", password: PASSWORD },
  });
  assert.equal(other.status, 200, `an allowed origin, spelled otherwise: ${other.text}`);
  await call(owner, "DELETE", `/local/1/sync/links/${made.json.id}`);
});

test("a sub-account linked to its parent never sees the parent's accountKey or key ids", async () => {
  const parentKeys = [];
  for (const name of ["parent one", "parent two"]) {
    const created = await call<{ key: string }>(owner, "POST", "/settings/1/accounts/_/api-keys", { name });
    assert.equal(created.status, 200, created.text);
    parentKeys.push(created.json.key);
  }
  // The same service is the remote; a restarted service without the allow-list (the desktop default).
  await team.stop();
  team = await startServe({ dataDir });
  const made = await linkTo(sub, team.url, "owner");
  assert.equal(made.status, 200, made.text);
  const run = await call<SyncLinkDto>(sub, "POST", `/local/1/sync/links/${made.json.id}/run`);
  assert.equal(run.status, 200, run.text);
  assert.match(run.json.lastError ?? "", /not mirrored/, "the run did meet the parent's keys");
  const answers = [
    run.text,
    (await call(sub, "GET", `/local/1/sync/links/${made.json.id}`)).text,
    (await call(sub, "GET", "/local/1/sync/links")).text,
    (await call(sub, "GET", `/local/1/sync/links/${made.json.id}/keys`)).text,
    (await call(sub, "GET", `/local/1/sync/links/${made.json.id}/outbox`)).text,
    (await call(sub, "GET", "/settings/1/accounts/_/api-keys")).text,
  ].join("\n");
  for (const id of [ownerAccountKey, ...parentKeys]) {
    assert.ok(!answers.toUpperCase().includes(id), `the sub-account was shown ${id}:\n${answers}`);
  }
});

test("a link made before the allow-list was set fails its runs until it is moved", async () => {
  await team.stop();
  team = await startServe({ dataDir, env: { KEY_SERVICE_SYNC_REMOTE_ALLOW: "https://keys.example.com" } });
  const { json } = await call<{ links: SyncLinkDto[] }>(sub, "GET", "/local/1/sync/links");
  const old = json.links[0];
  assert.ok(old, "the sub-account's link from the previous test");
  const run = await call<SyncLinkDto>(sub, "POST", `/local/1/sync/links/${old.id}/run`);
  assert.equal(run.status, 200, run.text);
  assert.equal(run.json.state, "backing-off");
  assert.match(run.json.lastError ?? "", /links only to remotes under https:\/\/keys\.example\.com/);
});
