import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { ExportDownload, KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../../../harness/memoryClipboard.ts";
import { ok } from "../../dispatchAssertions.ts";

/**
 * keys.export against the embedded service: the file is made in main from the keys in view, kept
 * for one download (browser host) or handed to the save port (desktop); the answer to the
 * renderer never holds a publicApiKey.
 */

let dataDir: string;
let core: KeydeskCore;
let saving: KeydeskCore;
let secrets: string[];
let savedTo: string | null = null;

before(async () => {
  dataDir = await makeTempDir("keydesk-export-");
  core = await startKeydeskCore({
    dataDir,
    vault: new SessionVault("export test"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  secrets = [];
  for (const name of ["alpha", "=SUM(A1)", 'with "quotes", commas', "beta"]) {
    secrets.push((await ok(core, "keys.create", { request: { name } })).publicApiKey);
  }
  await ok(core, "keys.create", { request: { name: "gamma off" } }).then((key) =>
    ok(core, "keys.setEnabled", { key: key.key, enabled: false }),
  );
});
after(async () => {
  await core?.close();
  await saving?.close();
  await removeDir(dataDir);
});

function take(url: string): ExportDownload {
  const file = core.takeDownload(url.replace("/download/", ""));
  assert.ok(file, `no download at ${url}`);
  return file;
}

test("CSV of the keys in view: header, injection guard, RFC 4180 quoting, no publicApiKey", async () => {
  const answer = await ok(core, "keys.export", {
    format: "csv",
    query: { enabled: true },
    sort: { by: "name", desc: false },
  });
  assert.equal(answer.delivered, "download");
  assert.ok(answer.delivered === "download");
  assert.equal(answer.count, 4);
  assert.ok(!JSON.stringify(answer).includes(secrets[0] as string));
  const file = take(answer.url);
  assert.match(
    file.fileName,
    /^keydesk-Local-owner-\d{4}-\d{2}-\d{2}\.csv$/,
    "named for the profile and account",
  );
  assert.equal(file.contentType, "text/csv; charset=utf-8");
  const lines = file.body.toString("utf8").split("\r\n");
  assert.equal(
    lines[0],
    "key,name,accountKey,permissions,allowedIPs,validFrom,validTo,enabled,state,createdAt,lastUsedAt,lastRefusedAt",
  );
  assert.match(
    lines[1] ?? "",
    /,true,Enabled,\d{4}-\d{2}-\d{2}T[^,]+,,$/,
    "state, created, never used nor refused",
  );
  assert.deepEqual(
    lines.slice(1, -1).map((line) => line.split(",")[1]),
    ["'=SUM(A1)", "alpha", "beta", '"with ""quotes""'],
  );
  for (const secret of secrets) assert.ok(!file.body.toString().includes(secret));
  assert.equal(core.takeDownload(answer.url.replace("/download/", "")), undefined, "one download only");
});

test("JSON with the publicApiKey, only when asked", async () => {
  const answer = await ok(core, "keys.export", {
    format: "json",
    withPublicApiKey: true,
    query: { nameContains: "alpha" },
  });
  assert.ok(answer.delivered === "download");
  const json = JSON.parse(take(answer.url).body.toString("utf8")) as {
    apiKeys: { name: string; publicApiKey?: string }[];
  };
  assert.deepEqual(
    json.apiKeys.map((key) => [key.name, key.publicApiKey]),
    [["alpha", secrets[0]]],
  );
  const plain = await ok(core, "keys.export", { format: "json" });
  assert.ok(plain.delivered === "download");
  const all = JSON.parse(take(plain.url).body.toString("utf8")) as { apiKeys: Record<string, unknown>[] };
  assert.equal(all.apiKeys.length, 5);
  assert.ok(all.apiKeys.every((key) => !("publicApiKey" in key)));
});

test("with a save port (the desktop's dialog) the file is written where the user picked; cancel writes nothing", async () => {
  const target = join(dataDir, "picked.csv");
  saving = await startKeydeskCore({
    dataDir: join(dataDir, "second"),
    vault: new SessionVault("export test 2"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
    exportFiles: {
      save: async (file) => {
        if (savedTo === null) return null;
        const { writeFile } = await import("node:fs/promises");
        await writeFile(savedTo, file.body, { mode: 0o600 });
        return savedTo;
      },
    },
  });
  await ok(saving, "keys.create", { request: { name: "only" } });
  assert.deepEqual(await ok(saving, "keys.export", { format: "csv" }), { delivered: "cancelled", count: 1 });
  savedTo = target;
  assert.deepEqual(await ok(saving, "keys.export", { format: "csv" }), {
    delivered: "file",
    path: target,
    count: 1,
  });
  assert.match(await readFile(target, "utf8"), /,only,/);
  assert.equal((await stat(target)).mode & 0o777, 0o600);
});
