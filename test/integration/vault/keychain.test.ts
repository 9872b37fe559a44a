/**
 * The credential vault against the real OS keychain: keytar talking to a real gnome-keyring
 * Secret Service inside a private D-Bus session (dbus-run-session), with HOME and
 * XDG_RUNTIME_DIR in a temp dir so the developer's own keyring is never touched.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { makeTempDir, removeDir } from "../../harness/keyServiceProcess.ts";

const CHECKS = path.join(path.dirname(fileURLToPath(import.meta.url)), "keychainChecks.ts");
const PACKAGES = "gnome-keyring dbus dbus-x11";
const RUN_LIMIT_MS = 30_000;

const hasTools =
  spawnSync("sh", ["-c", "command -v dbus-run-session && command -v gnome-keyring-daemon"], {
    stdio: "ignore",
  }).status === 0;

/** True when the test can run; fails in CI, skips elsewhere, when the Secret Service tools are missing. */
function needSecretService(t: TestContext): boolean {
  if (hasTools) return true;
  if (process.env.CI === "true") {
    assert.fail(`dbus-run-session or gnome-keyring-daemon is missing: apt-get install -y ${PACKAGES}`);
  }
  t.skip(`no Secret Service here: apt-get install ${PACKAGES}`);
  return false;
}

interface OpenResult {
  kind: string;
  unavailableReason: string | null;
  ms: number;
}
interface Run {
  json: Record<string, unknown> & { open?: OpenResult };
  ms: number;
  stderr: string;
}

let tempDir = "";

/** An environment that reaches no D-Bus session: no bus address, no X display, an empty runtime dir. */
function isolatedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "GNOME_KEYRING_CONTROL"]) {
    delete env[name];
  }
  return env;
}

function freshHome(label: string): NodeJS.ProcessEnv {
  const home = path.join(tempDir, label);
  const runtime = path.join(home, "run");
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  return {
    ...isolatedEnv(),
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: path.join(home, "data"),
    XDG_CONFIG_HOME: path.join(home, "config"),
  };
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  { killOnResult = false }: { killOnResult?: boolean } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      // Only the checks process is killed: dbus-run-session then stops its bus and reaps it.
      if (killOnResult && stdout.includes("\n")) {
        const { pid } = JSON.parse(stdout.split("\n")[0] ?? "{}") as { pid?: number };
        if (pid !== undefined) process.kill(pid, "SIGKILL");
      }
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      reject(new Error(`${command} did not finish within ${RUN_LIMIT_MS} ms; stderr:\n${stderr}`));
    }, RUN_LIMIT_MS);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolve({ json: JSON.parse(line), ms: performance.now() - started, stderr });
      } catch {
        reject(new Error(`no JSON from the checks; stdout:\n${stdout}\nstderr:\n${stderr}`));
      }
    });
  });
}

/** The checks inside a private D-Bus session; `unlock` starts and unlocks gnome-keyring first. */
function inSession(label: string, mode: "full" | "open", unlock: boolean): Promise<Run> {
  const prelude = unlock
    ? "printf %s pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; "
    : "";
  return run(
    "dbus-run-session",
    ["--", "sh", "-c", `${prelude}exec "$0" "$@"`, process.execPath, CHECKS, mode],
    freshHome(label),
  );
}

let unlocked: Run | undefined;

before(async () => {
  tempDir = await makeTempDir("keydesk-vault-");
  if (hasTools) unlocked = await inSession("unlocked", "full", true);
});
after(async () => {
  if (tempDir) await removeDir(tempDir);
});

function unlockedResult(): Record<string, unknown> & { open?: OpenResult } {
  assert.ok(unlocked, "the in-session checks did not run");
  assert.equal(unlocked.json.error, undefined, `the checks failed; stderr:\n${unlocked.stderr}`);
  return unlocked.json;
}

test("a secret set in the OS keychain reads back and is gone after delete", (t) => {
  if (!needSecretService(t)) return;
  const { roundTrip } = unlockedResult() as { roundTrip: Record<string, unknown> };
  assert.equal(roundTrip.readBack, roundTrip.value);
  assert.equal(roundTrip.deleted, true);
  assert.equal(roundTrip.afterDelete, null);
});

test("a secret stored by one KeytarVault is read by a new instance in the same session", (t) => {
  if (!needSecretService(t)) return;
  const { newInstance } = unlockedResult() as { newInstance: { value: string; readBack: unknown } };
  assert.match(newInstance.value, /^kept-/);
  assert.equal(newInstance.readBack, newInstance.value);
});

test("get answers null and delete answers false for an entry that does not exist", (t) => {
  if (!needSecretService(t)) return;
  const { missing } = unlockedResult() as { missing: Record<string, unknown> };
  assert.deepEqual(missing, { get: null, deleted: false });
});

test("openCredentialVault picks the OS keychain when an unlocked Secret Service is running", (t) => {
  if (!needSecretService(t)) return;
  const { open } = unlockedResult();
  assert.deepEqual(
    { kind: open?.kind, unavailableReason: open?.unavailableReason },
    { kind: "os", unavailableReason: null },
  );
});

test("outside any D-Bus session openCredentialVault falls back to session-only, with a reason, quickly", async (t) => {
  if (!needSecretService(t)) return;
  const outside = await run(process.execPath, [CHECKS, "open"], freshHome("outside"));
  const open = outside.json.open;
  assert.equal(open?.kind, "session-only", JSON.stringify(outside.json));
  assert.match(open?.unavailableReason ?? "", /no D-Bus session is running/);
  assert.ok(open.ms < 3500, `the probe took ${open.ms} ms`);
  assert.ok(outside.ms < 10_000, `the whole run took ${Math.round(outside.ms)} ms`);
});

test("with a Secret Service but no unlocked keyring openCredentialVault falls back to session-only", async (t) => {
  if (!needSecretService(t)) return;
  const locked = await inSession("locked", "open", false);
  const open = locked.json.open;
  assert.equal(open?.kind, "session-only", JSON.stringify(locked.json));
  assert.match(open?.unavailableReason ?? "", /keyring is locked or missing|did not answer within/);
  assert.ok(open.ms < 3500, `the probe took ${open.ms} ms`);
});

/**
 * A private session bus whose only service directory is empty, so nothing provides
 * org.freedesktop.secrets. With `deliverReplies: false` the bus drops every message to the
 * client, so no call ever gets an answer (a keychain that hangs).
 */
function bareBus(label: string, deliverReplies: boolean): { env: NodeJS.ProcessEnv; config: string } {
  const env = freshHome(label);
  const home = env.HOME ?? "";
  const services = path.join(home, "services");
  mkdirSync(services);
  const receive = deliverReplies
    ? '<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>'
    : '<allow send_destination="*"/>';
  const config = path.join(home, "session.conf");
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:tmpdir=${home}</listen><servicedir>${services}</servicedir>
<policy context="default">${receive}<allow own="*"/></policy></busconfig>
`,
  );
  return { env, config };
}

test("in a D-Bus session with no Secret Service at all openCredentialVault falls back, naming gnome-keyring", async (t) => {
  if (!needSecretService(t)) return;
  const { env, config } = bareBus("no-service", true);
  const bare = await run(
    "dbus-run-session",
    [`--config-file=${config}`, "--", process.execPath, CHECKS, "open"],
    env,
  );
  const open = bare.json.open;
  assert.equal(open?.kind, "session-only", JSON.stringify(bare.json));
  assert.match(
    open?.unavailableReason ?? "",
    /no Secret Service is running \(install and unlock gnome-keyring\)/,
  );
  assert.ok(open.ms < 3500, `the probe took ${open.ms} ms`);
});

test("when the keychain never answers openCredentialVault gives up after the probe timeout", async (t) => {
  if (!needSecretService(t)) return;
  const { env, config } = bareBus("no-answer", false);
  // The checks use a 3 s probe timeout. The hung native call would hold the process at exit for
  // D-Bus's own 25 s timeout, so the run ends as soon as the result is printed.
  const hung = await run(
    "dbus-run-session",
    [`--config-file=${config}`, "--", process.execPath, CHECKS, "open"],
    env,
    {
      killOnResult: true,
    },
  );
  const open = hung.json.open;
  assert.equal(open?.kind, "session-only", JSON.stringify(hung.json));
  assert.match(open?.unavailableReason ?? "", /did not answer within 3 s/);
  assert.ok(open.ms >= 2900 && open.ms < 4500, `the probe took ${open.ms} ms`);
});
