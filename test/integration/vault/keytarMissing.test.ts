/**
 * A machine where `npm install` could not build keytar (no libsecret-1-dev, no C++ toolchain):
 * keytar is an optional dependency, so it is simply absent. The vault must still open, for the
 * session only, with a reason that says what to install. A child process hides keytar from
 * module resolution the way a failed optional install leaves it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { REPO_ROOT } from "../../harness/keyServiceProcess.ts";

const HOOK = `
import { registerHooks } from "node:module";
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "keytar") {
      throw Object.assign(new Error("Cannot find package 'keytar'"), { code: "ERR_MODULE_NOT_FOUND" });
    }
    return nextResolve(specifier, context);
  },
});
`;
const HIDE_KEYTAR = `${HOOK}
const { openCredentialVault } = await import(${JSON.stringify(pathToFileURL(`${REPO_ROOT}/electron/vault/openCredentialVault.ts`).href)});
const vault = await openCredentialVault({ probeTimeoutMs: 2000 });
await vault.set("a", "b");
console.log(JSON.stringify({ kind: vault.kind, reason: vault.unavailableReason, roundTrip: await vault.get("a") }));
`;

test("without keytar installed the vault is session-only and says what to install", () => {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", HIDE_KEYTAR], {
    encoding: "utf8",
    timeout: 20_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const result = JSON.parse(run.stdout) as { kind: string; reason: string; roundTrip: string };
  assert.equal(result.kind, "session-only");
  assert.equal(result.roundTrip, "b", "the session vault keeps what it is given");
  assert.match(result.reason, /keytar is not installed/);
  if (process.platform === "linux") assert.match(result.reason, /libsecret-1-dev/);
});

const INSTALL_CHECK = pathToFileURL(`${REPO_ROOT}/electron/vault/keytarInstallCheck.mjs`).href;

test("npm install's postinstall says keytar is missing and what to install, and still succeeds", () => {
  const run = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `${HOOK}\nawait import("${INSTALL_CHECK}");`],
    {
      encoding: "utf8",
      timeout: 20_000,
    },
  );
  assert.equal(run.status, 0, "the check never fails the install");
  assert.match(run.stderr, /keytar\) is not available/);
  assert.match(run.stderr, /Local service's secrets stay in files/);
  if (process.platform === "linux") assert.match(run.stderr, /libsecret-1-dev/);
});

test("with keytar installed the postinstall check says nothing", (t) => {
  try {
    createRequire(import.meta.url).resolve("keytar");
  } catch {
    t.skip("keytar (an optional dependency) is not installed here");
    return;
  }
  const run = spawnSync(process.execPath, [fileURLToPath(INSTALL_CHECK)], {
    encoding: "utf8",
    timeout: 20_000,
  });
  assert.equal(run.status, 0);
  assert.equal(run.stderr, "");
});
