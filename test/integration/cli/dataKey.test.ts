import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  addAccount,
  basic,
  CLI,
  type CliResult,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  request,
  runCli,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Where the data key comes from (data.key file or KEY_SERVICE_DATA_KEY) and what happens when
 * it is wrong, missing, exposed or corrupted: a clear error and exit 1, never a silently new
 * key, never garbage, and the right key afterwards still reads every original publicApiKey.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const AUTH = basic("keeper", "keeper-password");

/** `key-service serve` expected to fail at start-up; killed (and the test failed) if it serves. */
function serveExpectingFailure(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("KEY_SERVICE_")),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data-dir", dataDir], {
      cwd: REPO_ROOT,
      env: { ...inherited, KEY_SERVICE_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve started although it should have refused; stdout: ${stdout}`));
    }, 15_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function assertStartupError(result: CliResult, pattern: RegExp, label: string): void {
  assert.equal(result.code, 1, `${label}: exit code 1; stderr: ${result.stderr}`);
  assert.equal(result.stdout, "", `${label}: nothing on stdout (it never listened)`);
  assert.match(result.stderr, /^key-service: /, label);
  assert.match(result.stderr, pattern, `${label}: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /\n\s+at /, `${label}: no stack trace`);
}

const sha256 = async (path: string) =>
  createHash("sha256")
    .update(await readFile(path))
    .digest("hex");

/** Creates keys with a running server and returns their publicApiKeys, in creation order. */
async function createKeys(dataDir: string, env: NodeJS.ProcessEnv, names: string[]): Promise<string[]> {
  const server = await startServe({ dataDir, env });
  try {
    const publicApiKeys: string[] = [];
    for (const name of names) {
      const created = await request(server.url, {
        method: "POST",
        path: KEYS,
        authorization: AUTH,
        body: { name },
      });
      assert.equal(created.status, 200, created.text);
      publicApiKeys.push((created.json as { publicApiKey: string }).publicApiKey);
    }
    return publicApiKeys;
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
}

/** Starts serve, reads every key's publicApiKey back (list and lookup), stops it. */
async function readPublicApiKeys(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const server = await startServe({ dataDir, env });
  try {
    const list = await request(server.url, { path: KEYS, authorization: AUTH });
    assert.equal(list.status, 200, list.text);
    const publicApiKeys = (list.json as { apiKeys: { publicApiKey: string }[] }).apiKeys.map(
      (k) => k.publicApiKey,
    );
    for (const publicApiKey of publicApiKeys) {
      const lookup = await request(server.url, {
        path: `${KEYS}?publicApiKey=${publicApiKey}`,
        authorization: AUTH,
      });
      assert.equal(
        (lookup.json as { apiKeys: unknown[] }).apiKeys.length,
        1,
        "lookup by publicApiKey finds it",
      );
    }
    return publicApiKeys;
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
}

describe("data key from the KEY_SERVICE_DATA_KEY environment variable", () => {
  let dir: string;
  const dataKey = randomBytes(32).toString("base64");
  const env = { KEY_SERVICE_DATA_KEY: dataKey };
  let original: string[];

  before(async () => {
    dir = await makeTempDir();
    const added = await runCli(["account", "add", "--data-dir", dir, "--username", "keeper"], {
      ...env,
      KEY_SERVICE_PASSWORD: "keeper-password",
    });
    assert.equal(added.code, 0, added.stderr);
    original = await createKeys(dir, env, ["env one", "env two"]);
  });

  after(async () => {
    await removeDir(dir);
  });

  test("no data.key file is created, and the same key reads the keys back", async () => {
    assert.equal(existsSync(join(dir, "data.key")), false);
    assert.deepEqual(await readPublicApiKeys(dir, env), original);
    assert.equal(existsSync(join(dir, "data.key")), false);
  });

  test("the same key written in hex (64 digits, as `openssl rand -hex 32` prints) reads the keys back", async () => {
    const hex = { KEY_SERVICE_DATA_KEY: Buffer.from(dataKey, "base64").toString("hex") };
    assert.deepEqual(await readPublicApiKeys(dir, hex), original);
  });

  test("a value that is not 32 bytes of base64 is refused with a clear error, exit 1", async () => {
    const dbBefore = await sha256(join(dir, "keydesk.db"));
    const invalid: Record<string, string> = {
      "too short": "abc",
      "16 bytes": randomBytes(16).toString("base64"),
      "33 bytes": randomBytes(33).toString("base64"),
      "44 characters, not base64": `${"!".repeat(43)}=`,
      "63 hex digits": randomBytes(32).toString("hex").slice(1),
      empty: "",
    };
    const results = await Promise.all(
      Object.values(invalid).map((value) => serveExpectingFailure(dir, { KEY_SERVICE_DATA_KEY: value })),
    );
    Object.keys(invalid).forEach((label, index) => {
      assertStartupError(
        results[index] as CliResult,
        /KEY_SERVICE_DATA_KEY.*32 bytes.*base64.*or hex/,
        label,
      );
    });
    const list = await runCli(["account", "list", "--data-dir", dir], { KEY_SERVICE_DATA_KEY: "abc" });
    assertStartupError(list, /KEY_SERVICE_DATA_KEY/, "account list with an invalid key");
    assert.equal(existsSync(join(dir, "data.key")), false);
    assert.equal(await sha256(join(dir, "keydesk.db")), dbBefore, "the database is untouched");
    assert.deepEqual(await readPublicApiKeys(dir, env), original);
  });

  test("another valid key on this database is refused at start-up, and the database is not modified", async () => {
    const dbBefore = await sha256(join(dir, "keydesk.db"));
    const filesBefore = (await readdir(dir)).sort();
    const other = { KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64") };
    assertStartupError(
      await serveExpectingFailure(dir, other),
      /KEY_SERVICE_DATA_KEY is not the data key this database was created with/,
      "serve with another key",
    );
    const add = await runCli(["account", "add", "--data-dir", dir, "--username", "intruder"], {
      ...other,
      KEY_SERVICE_PASSWORD: "intruder-password",
    });
    assertStartupError(add, /not the data key/, "account add with another key");
    assert.equal(await sha256(join(dir, "keydesk.db")), dbBefore, "the database is untouched");
    assert.deepEqual((await readdir(dir)).sort(), filesBefore, "no file was added or left behind");
    assert.deepEqual(await readPublicApiKeys(dir, env), original);
    const accounts = await runCli(["account", "list", "--data-dir", dir, "--json"], env);
    assert.doesNotMatch(accounts.stdout, /intruder/);
  });

  test("without the variable, the keyed database refuses to start instead of creating a new data.key", async () => {
    assertStartupError(
      await serveExpectingFailure(dir),
      /data key file .*data\.key is missing/,
      "no key at all",
    );
    assert.equal(existsSync(join(dir, "data.key")), false, "no new key was created");
    assert.deepEqual(await readPublicApiKeys(dir, env), original);
  });
});

describe("data key in the data.key file", () => {
  let dir: string;
  let keyPath: string;
  let keyText: string;
  let original: string[];

  before(async () => {
    dir = await makeTempDir();
    keyPath = join(dir, "data.key");
    await addAccount(dir, "keeper", "keeper-password");
    original = await createKeys(dir, {}, ["file one", "file two", "file three"]);
    keyText = await readFile(keyPath, "utf8");
  });

  after(async () => {
    await removeDir(dir);
  });

  /** After a refused start: the database is as it was and the right key reads every original key. */
  async function assertIntactWithRightKey(dbBefore: string): Promise<void> {
    assert.equal(await sha256(join(dir, "keydesk.db")), dbBefore, "the database was not modified");
    await writeFile(keyPath, keyText, { mode: 0o600 });
    await chmod(keyPath, 0o600);
    assert.deepEqual(await readPublicApiKeys(dir), original);
  }

  test("the file is created on first use with mode 0600 and holds 32 bytes in base64", async () => {
    assert.equal(((await stat(keyPath)).mode & 0o777).toString(8), "600");
    assert.match(keyText, /^[A-Za-z0-9+/]{43}=\n?$/);
    assert.equal(Buffer.from(keyText.trim(), "base64").length, 32);
    assert.deepEqual(await readPublicApiKeys(dir), original);
  });

  test("data.key deleted after keys exist: a clear error, and no new key is silently created", async () => {
    const dbBefore = await sha256(join(dir, "keydesk.db"));
    await rename(keyPath, `${keyPath}.saved`);
    try {
      const result = await serveExpectingFailure(dir);
      assertStartupError(
        result,
        /data\.key is missing.*restore the original data\.key or set KEY_SERVICE_DATA_KEY/,
        "missing",
      );
      assert.equal(existsSync(keyPath), false, "no new data.key was created");
      const list = await runCli(["account", "list", "--data-dir", dir]);
      assertStartupError(list, /data\.key is missing/, "account list without the key");
      assert.equal(existsSync(keyPath), false);
      // The error's advice works: the same key given through the environment opens the database.
      assert.deepEqual(await readPublicApiKeys(dir, { KEY_SERVICE_DATA_KEY: keyText.trim() }), original);
      assert.equal(existsSync(keyPath), false);
    } finally {
      await rename(`${keyPath}.saved`, keyPath);
    }
    await assertIntactWithRightKey(dbBefore);
  });

  for (const mode of [0o644, 0o640, 0o604]) {
    test(`data.key with mode ${mode.toString(8)}: a clear error telling to chmod 600`, async () => {
      const dbBefore = await sha256(join(dir, "keydesk.db"));
      await chmod(keyPath, mode);
      const result = await serveExpectingFailure(dir);
      assertStartupError(
        result,
        new RegExp(`mode ${mode.toString(8)}\\).*chmod 600 ${keyPath}`),
        "exposed key",
      );
      assert.equal(
        ((await stat(keyPath)).mode & 0o777).toString(8),
        mode.toString(8),
        "the mode is not changed behind the user's back",
      );
      await assertIntactWithRightKey(dbBefore);
    });
  }

  const corruptions: Record<string, () => Buffer | string> = {
    "an empty file": () => "",
    "a truncated key": () => keyText.slice(0, 20),
    "text that is not base64": () => `${"#".repeat(43)}=\n`,
    "32 raw bytes instead of base64": () => randomBytes(32),
    "the key with garbage appended": () => `${keyText.trim()}garbage\n`,
  };
  for (const [label, content] of Object.entries(corruptions)) {
    test(`data.key holding ${label}: a clear error, exit 1, nothing changed`, async () => {
      const dbBefore = await sha256(join(dir, "keydesk.db"));
      await writeFile(keyPath, content());
      await chmod(keyPath, 0o600);
      assertStartupError(
        await serveExpectingFailure(dir),
        /data key file .*data\.key must hold exactly 32 bytes in base64/,
        label,
      );
      await assertIntactWithRightKey(dbBefore);
    });
  }

  test("data.key holding another valid key: refused as not the database's data key, never garbage", async () => {
    const dbBefore = await sha256(join(dir, "keydesk.db"));
    await writeFile(keyPath, `${randomBytes(32).toString("base64")}\n`);
    await chmod(keyPath, 0o600);
    assertStartupError(
      await serveExpectingFailure(dir),
      /data key file .*data\.key is not the data key this database was created with/,
      "another key",
    );
    await assertIntactWithRightKey(dbBefore);
  });
});
