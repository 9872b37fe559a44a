import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { openDataDir } from "../../../electron/service/dataDir.ts";
import { SCHEMA_VERSION } from "../../../electron/service/store/database.ts";
import { copyF31ab92DataDir, F31AB92_FIXTURE } from "../../harness/fixtureDataDir.ts";
import {
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * A data directory written by Keydesk at commit f31ab92 (test/fixtures/data-f31ab92, made by its
 * make.mjs) opens with this version, every account, key, 2FA application, template, PIN and sync
 * link intact: an upgrade never loses what an earlier version stored.
 */

type Key = { key: string; name: string; publicApiKey: string; accountKey: string; enabled: boolean };
const written = JSON.parse(readFileSync(join(F31AB92_FIXTURE, "written.json"), "utf8")) as {
  ownerKey: string;
  subKey: string;
  keys: Key[];
  tfaKey: string;
  app: { applicationId: string; name: string; configuration: Record<string, unknown> };
  tpl: { messageId: string; messageText: string };
  pin: { pinId: string };
  link: { id: number; remote: { baseUrl: string; username: string; accountKey: string } };
  synced: Key;
  /** The synced key after the link ran: its publicApiKey is the remote's (the push adopts it). */
  syncedAfterRun: Key;
};
const owner = basic("owner", "fixture password one");
const teamA = basic("team-a", "fixture password two");

let dataDir: string;
let serve: ServeProcess;
before(async () => {
  dataDir = await makeTempDir("keydesk-f31ab92-");
  copyF31ab92DataDir(dataDir);
  serve = await startServe({ dataDir });
});
after(async () => {
  await serve?.stop();
  await removeDir(dataDir);
});

const get = (path: string, authorization: string) => request(serve.url, { path, authorization });

test("both accounts sign in with the passwords that version set", async () => {
  const accounts = await get("/local/1/accounts", owner);
  assert.equal(accounts.status, 200, accounts.text);
  const mine = await get("/settings/1/accounts/_/api-keys", teamA);
  assert.equal(mine.status, 200, mine.text);
});

test("every key answers as that version answered it: same publicApiKey, fields and state", async () => {
  // The disabled key was disabled after its create answer was recorded.
  const expected = [...written.keys, written.syncedAfterRun].map((key) =>
    key.name === "disabled key" ? { ...key, enabled: false } : key,
  );
  for (const key of expected) {
    const read = await get(`/settings/1/accounts/${key.accountKey}/api-keys/${key.key}`, owner);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json, key);
  }
  const own = (await get("/settings/1/accounts/_/api-keys", owner)).json as { apiKeys: Key[] };
  assert.equal(own.apiKeys.length, 5, "four keys, the 2FA key and the synced key");
  assert.ok(own.apiKeys.some((key) => key.publicApiKey === written.tfaKey));
});

test("the keys still App-authorize: the 2FA application and its template are there", async () => {
  const plain = written.keys[0] as Key;
  const apps = await get("/2fa/2/applications", `App ${plain.publicApiKey}`);
  assert.equal(apps.status, 200, apps.text);
  assert.deepEqual(
    (apps.json as { applicationId: string; name: string }[]).map(({ applicationId, name }) => ({
      applicationId,
      name,
    })),
    [{ applicationId: written.app.applicationId, name: written.app.name }],
  );
  const templates = await get(
    `/2fa/2/applications/${written.app.applicationId}/messages`,
    `App ${plain.publicApiKey}`,
  );
  assert.equal(templates.status, 200, templates.text);
  assert.equal((templates.json as { messageText: string }[])[0]?.messageText, written.tpl.messageText);
  const disabled = written.keys.find((key) => key.name === "disabled key") as Key;
  assert.equal((await get("/2fa/2/applications", `App ${disabled.publicApiKey}`)).status, 403);
});

test("the PIN that version sent is in the inbox", async () => {
  const pins = await get("/local/1/pins", owner);
  assert.equal(pins.status, 200, pins.text);
  assert.match(pins.text, new RegExp(written.pin.pinId));
});

test("the database as that version left it is kept beside it, whole, while the upgraded one is tried", () => {
  const copy = new Database(join(dataDir, "keydesk.db.before-schema-3"), { readonly: true });
  try {
    assert.equal(copy.pragma("user_version", { simple: true }), 3);
    assert.equal((copy.prepare("SELECT count(*) AS n FROM api_keys").get() as { n: number }).n, 6);
  } finally {
    copy.close();
  }
});

test("the sync link is there, with its linked key and its remote password readable", async () => {
  const links = await get("/local/1/sync/links", owner);
  assert.equal(links.status, 200, links.text);
  const [link] = (links.json as { links?: unknown[] }).links ?? (links.json as unknown[]);
  assert.deepEqual((link as { remote: unknown }).remote, written.link.remote);
  assert.equal((link as { linkedKeys: number }).linkedKeys, 1);
  await serve.stop();
  const data = openDataDir({ dataDir });
  try {
    assert.equal(data.db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
    const stored = await data.store.sync.link(written.link.id);
    assert.ok(stored);
    assert.equal(await data.store.sync.remotePassword(stored), "remote password one");
  } finally {
    data.close();
  }
  assert.equal(existsSync(join(dataDir, "keydesk.db.before-schema-3")), false, "dropped at the next start");
});
