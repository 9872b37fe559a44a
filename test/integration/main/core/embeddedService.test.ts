import assert from "node:assert/strict";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  type EmbeddedService,
  startEmbeddedService,
} from "../../../../electron/main/core/embeddedService.ts";
import { vaultAccounts } from "../../../../electron/vault/credentialVault.ts";
import { SessionVault } from "../../../../electron/vault/sessionVault.ts";
import { basic, makeTempDir, removeDir, request } from "../../../harness/keyServiceProcess.ts";

/**
 * The embedded service stopped for a while (a restore replaces its data meanwhile): started again
 * on the same port, and, when it cannot start on what replaced its data, back on the previous data.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
let appDataDir: string;
let vault: SessionVault;
let service: EmbeddedService;

const owner = async () =>
  basic("owner", (await vault.get(vaultAccounts.profilePassword("local"))) ?? "no password");
// Its own connection each time (fetch's pool, not the one the set-up's request used): what is
// checked is the data served after the restart, not how a client's pooled socket fares.
const keyNames = async () => {
  const response = await fetch(`${service.url}${KEYS}`, { headers: { authorization: await owner() } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { apiKeys: { name: string }[] }).apiKeys.map((key) => key.name);
};

before(async () => {
  appDataDir = await makeTempDir("keydesk-embedded-");
  vault = new SessionVault("embedded service test");
  service = await startEmbeddedService({
    appDataDir,
    vault,
    port: 0,
    ownerPasswordAccount: vaultAccounts.profilePassword("local"),
  });
  const response = await request(service.url, {
    method: "POST",
    path: KEYS,
    authorization: await owner(),
    body: { name: "kept" },
  });
  assert.equal(response.status, 200, response.text);
});
after(async () => {
  await service?.close();
  await removeDir(appDataDir);
});

test("data the service cannot start on is undone: the previous data is back, served on the same port", async () => {
  const port = service.port;
  const aside = `${service.dataDir}.aside`;
  const failed = `${service.dataDir}.failed`;
  await assert.rejects(
    service.whileStopped(
      async () => {
        renameSync(service.dataDir, aside);
        mkdirSync(service.dataDir);
        writeFileSync(join(service.dataDir, "keydesk.db"), Buffer.alloc(8192, 0x5a));
      },
      async () => {
        renameSync(service.dataDir, failed);
        renameSync(aside, service.dataDir);
      },
    ),
    /did not start on the new data .*; the previous data is back in place/,
  );
  assert.equal(service.port, port);
  assert.deepEqual(await keyNames(), ["kept"]);
});

test("work that fails leaves the service running on its data", async () => {
  await assert.rejects(
    service.whileStopped(async () => {
      throw new Error("the restore could not go on");
    }),
    /the restore could not go on/,
  );
  assert.deepEqual(await keyNames(), ["kept"]);
});
