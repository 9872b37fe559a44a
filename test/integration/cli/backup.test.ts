import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { openDataDir } from "../../../electron/service/dataDir.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { flipAt } from "../../harness/oldBackupFormat.ts";
import { firstChunkPlaintext } from "../../harness/streamBackupFormat.ts";
import { SCHED_IDLE, SCHED_NORMAL, THREAD_POLICIES_MODULE } from "../../harness/threadPolicies.ts";

/**
 * `key-service backup` takes a consistent, passphrase-sealed snapshot while `serve` runs and
 * writes; `key-service restore` brings it back whole on another machine, or writes nothing.
 */

const PASSPHRASE = "correct horse battery staple";
const OWNER = basic("owner", "owner password long 1");
const TEAM = basic("team", "team password long 2");
const REMOTE_PASSWORD = "remote password long 3";
const KEYS = "/settings/1/accounts/_/api-keys";
type Key = { key: string; publicApiKey: string; name: string };

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await makeTempDir("keydesk-backup-");
  dirs.push(dir);
  return dir;
}

let source: string;
let serve: ServeProcess;
/** Every key whose create was answered before the backup began. */
const answeredBefore: Key[] = [];
let backupFile: string;
let writtenDuringBackup = 0;

before(async () => {
  source = await tempDir();
  await addAccount(source, "owner", "owner password long 1");
  const teamKey = await addAccount(source, "team", "team password long 2", "owner");
  serve = await startServe({ dataDir: source });
  const create = async (name: string, authorization = OWNER, path = KEYS) => {
    const created = await request(serve.url, { path, authorization, body: { name } });
    assert.equal(created.status, 200, created.text);
    return created.json as Key;
  };
  for (let i = 0; i < 200; i++) answeredBefore.push(await create(`before ${i}`));
  answeredBefore.push(await create("team key", TEAM));
  answeredBefore.push(await create("owner's key of team", OWNER, `/settings/1/accounts/${teamKey}/api-keys`));
  const appKey = `App ${(answeredBefore[0] as Key).publicApiKey}`;
  const app = await request(serve.url, {
    path: "/2fa/2/applications",
    authorization: appKey,
    body: { name: "app" },
  });
  assert.equal(app.status, 200, app.text);
  const link = await request(serve.url, {
    path: "/local/1/sync/links",
    authorization: OWNER,
    body: {
      accountKey: "_",
      remote: { baseUrl: "http://127.0.0.1:9", username: "remote-admin", password: REMOTE_PASSWORD },
      check: false,
    },
  });
  assert.equal(link.status, 200, link.text);

  // A write burst runs while the backup is taken.
  let writing = true;
  const writers = [1, 2].map(async (writer) => {
    for (let i = 0; writing; i++) {
      await create(`during ${writer}.${i}`);
      writtenDuringBackup += 1;
    }
  });
  backupFile = join(await tempDir(), "keydesk.backup");
  const backup = await runCli(["backup", "--data-dir", source, "--out", backupFile], {
    KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
  });
  writing = false;
  await Promise.all(writers);
  assert.equal(backup.code, 0, backup.stderr);
  assert.match(backup.stdout, /^backed up \d+ keys of 2 accounts to .*keydesk\.backup \(\d+ bytes\)\n$/);
});
after(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

const restore = (target: string, env: NodeJS.ProcessEnv = {}, extra: string[] = []) =>
  runCli(["restore", "--in", backupFile, "--data-dir", target, ...extra], {
    KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
    ...env,
  });

/** Another machine: another HOME, no keychain, no data key in the environment. */
const newMachine = async (): Promise<NodeJS.ProcessEnv> => ({ HOME: await tempDir(), XDG_DATA_HOME: "" });

async function assertWhole(dataDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const restored = await startServe({ dataDir, env });
  try {
    for (const key of answeredBefore) {
      const path =
        key.name === "owner's key of team" || key.name === "team key"
          ? `/settings/1/accounts/${(key as Key & { accountKey: string }).accountKey}/api-keys/${key.key}`
          : `${KEYS}/${key.key}`;
      const read = await request(restored.url, { path, authorization: OWNER });
      assert.equal(read.status, 200, `${key.name}: ${read.text}`);
      assert.equal((read.json as Key).publicApiKey, key.publicApiKey, key.name);
    }
    const apps = await request(restored.url, {
      path: "/2fa/2/applications",
      authorization: `App ${(answeredBefore[0] as Key).publicApiKey}`,
    });
    assert.equal(apps.status, 200, "the keys App-authorize");
    assert.equal((apps.json as unknown[]).length, 1, "the 2FA application is there");
    assert.equal(
      (await request(restored.url, { path: KEYS, authorization: TEAM })).status,
      200,
      "team signs in",
    );
  } finally {
    await restored.stop();
  }
  const data = openDataDir({
    dataDir,
    ...(env.KEY_SERVICE_DATA_KEY && { dataKeyBase64: env.KEY_SERVICE_DATA_KEY }),
  });
  try {
    const [link] = await data.store.sync.links();
    assert.ok(link, "the sync link is there");
    assert.equal(await data.store.sync.remotePassword(link), REMOTE_PASSWORD);
  } finally {
    data.close();
  }
}

describe("a backup taken during a write burst", () => {
  test("restores on a new machine with every key answered before it began, same publicApiKey, App-authorizing", async () => {
    assert.ok(writtenDuringBackup > 0, "the service went on writing during the backup");
    const target = join(await tempDir(), "restored");
    const env = await newMachine();
    const result = await restore(target, env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^restored \d+ keys of 2 accounts \(backup of .*\) into .*restored\n$/);
    assert.deepEqual(readdirSync(target).sort(), ["data.key", "keydesk.db"]);
    await assertWhole(target, env);
  });

  test("under a data key the target sets, everything is sealed again under that key", async () => {
    const target = join(await tempDir(), "resealed");
    const env = { ...(await newMachine()), KEY_SERVICE_DATA_KEY: Buffer.alloc(32, 9).toString("base64") };
    const result = await restore(target, env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(readdirSync(target), ["keydesk.db"], "no data key file: the environment holds it");
    await assertWhole(target, env);
  });
});

describe("the one-line reports", () => {
  test("count one account and one key in the singular", async () => {
    const dir = await tempDir();
    await addAccount(dir, "solo", "solo password long 4");
    const solo = await startServe({ dataDir: dir });
    try {
      const created = await request(solo.url, {
        path: KEYS,
        authorization: basic("solo", "solo password long 4"),
        body: { name: "only key" },
      });
      assert.equal(created.status, 200, created.text);
    } finally {
      await solo.stop();
    }
    const file = join(await tempDir(), "solo.backup");
    const env = { KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE };
    const backup = await runCli(["backup", "--data-dir", dir, "--out", file], env);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^backed up 1 key of 1 account to .*solo\.backup \(\d+ bytes\)\n$/);
    const restored = await runCli(["restore", "--in", file, "--data-dir", join(await tempDir(), "r")], env);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /^restored 1 key of 1 account \(backup of /);
  });
});

describe("nothing in the file is readable without the passphrase", () => {
  test("no publicApiKey, password, data key or remote password appears in it", () => {
    const bytes = readFileSync(backupFile);
    const dataKey = readFileSync(join(source, "data.key"), "utf8").trim();
    const secrets = [
      ...answeredBefore.map((key) => key.publicApiKey),
      "owner password long 1",
      REMOTE_PASSWORD,
      dataKey,
      Buffer.from(dataKey, "base64").toString("latin1"),
      "SQLite format 3",
    ];
    for (const secret of secrets) assert.equal(bytes.includes(Buffer.from(secret, "latin1")), false, secret);
  });
});

describe("restore writes nothing when it cannot restore", () => {
  test("a wrong passphrase: exit 1, one line, no directory", async () => {
    const target = join(await tempDir(), "wrong");
    const result = await restore(target, { KEY_SERVICE_BACKUP_PASSPHRASE: "not the passphrase at all" });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `key-service: cannot restore ${backupFile}: the passphrase is wrong, or the file is damaged; nothing was written\n`,
    );
    assert.equal(existsSync(target), false);
    assert.deepEqual(readdirSync(join(target, "..")), [], "no staging directory left behind");
  });

  test("a damaged file: exit 1, nothing written", async () => {
    const dir = await tempDir();
    const damaged = join(dir, "damaged.backup");
    const bytes = readFileSync(backupFile);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] as number) ^ 0xff;
    writeFileSync(damaged, bytes);
    const target = join(dir, "target");
    const result = await runCli(["restore", "--in", damaged, "--data-dir", target], {
      KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
    });
    assert.equal(result.code, 1);
    // A byte of a later chunk: the passphrase was right (the first chunk opened), so the file is damaged.
    assert.equal(
      result.stderr,
      `key-service: cannot restore ${damaged}: the file is damaged (a part of it was changed, moved or cut); nothing was written\n`,
    );
    assert.deepEqual(readdirSync(dir), ["damaged.backup"]);
  });

  test('a manifest flipped without the passphrase ("bytes":N into "bytes":-5): exit 1, one line, nothing written', async () => {
    const dir = await tempDir();
    const bytes = readFileSync(backupFile);
    const { plain, headLength } = await firstChunkPlaintext(bytes, PASSPHRASE);
    const manifest = plain.subarray(4, 4 + plain.readUInt32BE(0)).toString("utf8");
    const from = /"bytes":\d+\}/.exec(manifest)?.[0] as string;
    // The first chunk's ciphertext: its tag byte, then the payload's (manifest length, manifest).
    const flipped = flipAt(
      bytes,
      headLength + 1 + 4 + manifest.indexOf(from),
      from,
      `"bytes":-5}`.padEnd(from.length),
    );
    const input = join(dir, "flipped.backup");
    writeFileSync(input, flipped);
    const result = await runCli(["restore", "--in", input, "--data-dir", join(dir, "target")], {
      KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
    });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `key-service: cannot restore ${input}: the passphrase is wrong, or the file is damaged; nothing was written\n`,
    );
    assert.deepEqual(readdirSync(dir), ["flipped.backup"]);
  });

  test("a file that is no backup says so", async () => {
    const dir = await tempDir();
    const other = join(dir, "notes.txt");
    writeFileSync(other, "just some text, long enough to be read as a head");
    const result = await runCli(["restore", "--in", other, "--data-dir", join(dir, "t")], {
      KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /it is not a Keydesk backup file/);
  });

  test("a directory that holds data is refused; with --force its data is kept beside it", async () => {
    const parent = await tempDir();
    const target = join(parent, "busy");
    await addAccount(target, "someone", "someone password long");
    const refused = await restore(target);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /holds data; restore into an empty or new directory, or add --force/);
    const forced = await restore(target, {}, ["--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    const kept = readdirSync(parent).find((name) => name.startsWith("busy.before-restore-"));
    assert.ok(kept, readdirSync(parent).join(", "));
    assert.match(forced.stdout, new RegExp(`the data that was there is in .*${kept}`));
    assert.ok(existsSync(join(parent, kept, "keydesk.db")));
  });

  test("with --force, a directory a serve is running on is refused and left as it is", async () => {
    const parent = await tempDir();
    const target = join(parent, "live");
    await addAccount(target, "someone", "someone password long");
    const running = await startServe({ dataDir: target });
    try {
      const refused = await restore(target, {}, ["--force"]);
      assert.equal(refused.code, 1, refused.stdout);
      assert.equal(
        refused.stderr,
        `key-service: ${target} is in use by a running key service (key-service serve, the Keydesk app, or another key-service command): stop it first\n`,
      );
      assert.deepEqual(readdirSync(parent), ["live"], "nothing moved aside, no staging dir");
      const still = await request(running.url, { path: "/local/1/health/ready" });
      assert.equal(still.status, 200);
    } finally {
      await running.stop("SIGTERM");
    }
    const forced = await restore(target, {}, ["--force"]);
    assert.equal(forced.code, 0, forced.stderr);
  });

  test("the passphrase comes from the environment only, and a new backup's must be long enough", async () => {
    const none = await runCli(["restore", "--in", backupFile, "--data-dir", join(await tempDir(), "x")]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /KEY_SERVICE_BACKUP_PASSPHRASE/);
    const short = await runCli(["backup", "--data-dir", source, "--out", join(await tempDir(), "b")], {
      KEY_SERVICE_BACKUP_PASSPHRASE: "short",
    });
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 12 characters/);
  });
});

/**
 * The backup command run in a process of its own, which then reports the scheduling policy of
 * each of its threads.
 */
async function backupThreadPolicies(extra: string[]): Promise<number[]> {
  const out = join(await tempDir(), "priority.backup");
  const script = `
    import { threadPolicies } from ${JSON.stringify(THREAD_POLICIES_MODULE)};
    import { backupCommand } from ${JSON.stringify(join(REPO_ROOT, "electron/cli/backupCommand.ts"))};
    await backupCommand(${JSON.stringify(["--data-dir", source, "--out", out, ...extra])}, {
      KEY_SERVICE_BACKUP_PASSPHRASE: ${JSON.stringify(PASSPHRASE)},
    });
    console.log(JSON.stringify(threadPolicies().map((thread) => thread.policy)));`;
  const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(printed.trim().split("\n").at(-1) as string) as number[];
}

describe("a backup leaves the CPU to the service", {
  skip: process.platform !== "linux" && "reads Linux's /proc",
}, () => {
  test("by default every thread of the backup's process is in the idle class", async () => {
    const policies = await backupThreadPolicies([]);
    assert.ok(policies.length > 1, "the process has its helper threads");
    assert.deepEqual(new Set(policies), new Set([SCHED_IDLE]));
  });

  test("--priority normal keeps the normal class; another value is refused", async () => {
    assert.deepEqual(new Set(await backupThreadPolicies(["--priority", "normal"])), new Set([SCHED_NORMAL]));
    const refused = await runCli(
      ["backup", "--data-dir", source, "--out", join(await tempDir(), "b"), "--priority", "low"],
      {
        KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
      },
    );
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--priority must be idle or normal, not "low"/);
  });
});
