import assert from "node:assert/strict";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { ProfileStore } from "../../../../../electron/main/core/profileStore.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/** The settings file: checked on read, written atomically, a corrupt one kept aside. */

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir("keydesk-settings-");
});
afterEach(async () => {
  await removeDir(dir);
});

test("fresh settings: no profiles, clipboard delay 30 s; a write is read back by a new store", async () => {
  const store = new ProfileStore(dir);
  assert.equal(store.settings.clipboardClearSeconds, 30);
  assert.deepEqual(store.profiles(), []);
  store.upsertProfile({
    id: "p1",
    name: "Remote",
    kind: "remote",
    baseUrl: "https://x.example",
    username: "u",
  });
  store.update((settings) => {
    settings.activeProfileId = "p1";
  });
  const again = new ProfileStore(dir);
  assert.equal(again.settings.activeProfileId, "p1");
  assert.deepEqual(again.profile("p1")?.baseUrl, "https://x.example");
  assert.deepEqual(await readdir(dir), ["settings.json"]);
  if (process.platform !== "win32")
    assert.equal((await stat(join(dir, "settings.json"))).mode & 0o777, 0o600);
});

test("an update that breaks the schema is refused and nothing is written", async () => {
  const store = new ProfileStore(dir);
  store.update((settings) => {
    settings.clipboardClearSeconds = 60;
  });
  assert.throws(() =>
    store.update((settings) => {
      settings.clipboardClearSeconds = 1;
    }),
  );
  assert.equal(store.settings.clipboardClearSeconds, 60);
  assert.equal(JSON.parse(await readFile(join(dir, "settings.json"), "utf8")).clipboardClearSeconds, 60);
});

test("unreadable JSON and JSON of the wrong shape are kept aside as settings.json.corrupt-<time>", async () => {
  for (const content of ["{ nope", JSON.stringify({ version: 1, profiles: "many" })]) {
    await removeDir(dir);
    dir = await makeTempDir("keydesk-settings-");
    await writeFile(join(dir, "settings.json"), content);
    const store = new ProfileStore(dir);
    assert.deepEqual(store.profiles(), []);
    assert.ok(store.corruptBackup);
    assert.equal(await readFile(store.corruptBackup, "utf8"), content);
    assert.deepEqual(
      (await readdir(dir)).filter((file) => file.startsWith("settings.json.corrupt-")).length,
      1,
    );
  }
});
