import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { postgresClusterForFile, skipWithoutPostgres, startPostgres } from "../../harness/postgres.ts";

/**
 * `key-service serve` and `account` on PostgreSQL, run as a team's admin runs them: a database URL
 * (--database-url or KEY_SERVICE_DATABASE_URL) and the data key from KEY_SERVICE_DATA_KEY or a key
 * file, no data dir. Wrong keys, bad URLs and SQLite-only commands are refused with a clear line
 * that never shows the database password.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const OWNER = basic("owner", "owner-password");

const postgres = postgresClusterForFile();
let dir: string;

before(async () => {
  dir = await makeTempDir("keydesk-pgcli-");
});

after(async () => {
  await removeDir(dir);
});

/** A fresh database, its data key (base64) and the environment naming both, as docs/team-server.md shows. */
async function freshDatabase() {
  const url = await postgres.cluster().createDatabase();
  const dataKey = randomBytes(32).toString("base64");
  return { url, dataKey, env: { KEY_SERVICE_DATABASE_URL: url, KEY_SERVICE_DATA_KEY: dataKey } };
}

const passwordOf = (url: string) => decodeURIComponent(new URL(url).password);

async function addOwner(env: NodeJS.ProcessEnv) {
  const added = await runCli(["account", "add", "--username", "owner"], {
    ...env,
    KEY_SERVICE_PASSWORD: "owner-password",
  });
  assert.equal(added.code, 0, added.stderr);
  return added.stdout.trim();
}

describe("serve on PostgreSQL", () => {
  const running: ServeProcess[] = [];
  const serve = async (env: NodeJS.ProcessEnv, args: string[] = []) => {
    const replica = await startServe({ dataDir: dir, storeArgs: [], env, args });
    running.push(replica);
    return replica;
  };

  after(async () => {
    for (const replica of running) await replica.stop("SIGTERM");
  });

  test("answers create, list and get with Basic credentials", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { env } = await freshDatabase();
    const accountKey = await addOwner(env);
    const service = await serve(env);
    const created = await request(service.url, {
      method: "POST",
      path: KEYS,
      authorization: OWNER,
      body: { name: "on postgres", permissions: ["ALL"] },
    });
    assert.equal(created.status, 200, created.text);
    const key = created.json as { key: string; publicApiKey: string; accountKey: string };
    assert.equal(key.accountKey, accountKey);
    const listed = await request(service.url, { path: KEYS, authorization: OWNER });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json as { apiKeys: { key: string }[] }).apiKeys.map((k) => k.key),
      [key.key],
    );
    const got = await request(service.url, { path: `${KEYS}/${key.key}`, authorization: OWNER });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json, created.json);
  });

  test("an App key authorizes 2FA calls; an unknown one is refused", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { env } = await freshDatabase();
    await addOwner(env);
    const service = await serve(env);
    const created = await request(service.url, {
      method: "POST",
      path: KEYS,
      authorization: OWNER,
      body: { name: "app", permissions: ["ALL"] },
    });
    assert.equal(created.status, 200, created.text);
    const { publicApiKey } = created.json as { publicApiKey: string };
    const applications = await request(service.url, {
      path: "/2fa/2/applications",
      authorization: `App ${publicApiKey}`,
    });
    assert.equal(applications.status, 200, applications.text);
    const unknown = await request(service.url, {
      path: "/2fa/2/applications",
      authorization: `App ${randomBytes(16).toString("hex")}-0000-0000-0000-0000-000000000000`,
    });
    assert.equal(unknown.status, 401, unknown.text);
  });

  test("two serve processes on one database both answer: a key created on A is listed on B", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { env } = await freshDatabase();
    await addOwner(env);
    const [a, b] = await Promise.all([serve(env), serve(env)]);
    const created = await request((a as ServeProcess).url, {
      method: "POST",
      path: KEYS,
      authorization: OWNER,
      body: { name: "made on A" },
    });
    assert.equal(created.status, 200, created.text);
    const listed = await request((b as ServeProcess).url, { path: KEYS, authorization: OWNER });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json as { apiKeys: { name: string }[] }).apiKeys.map((k) => k.name),
      ["made on A"],
    );
  });

  test("the data key from a file (--data-key-file, mode 0600) or in hex opens the same database", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { url, dataKey, env } = await freshDatabase();
    await addOwner(env);
    const keyFile = join(dir, "team.key");
    await writeFile(keyFile, `${dataKey}\n`, { mode: 0o600 });
    const fromFile = await runCli(["account", "list", "--database-url", url, "--data-key-file", keyFile]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.match(fromFile.stdout, /owner/);
    const hex = Buffer.from(dataKey, "base64").toString("hex");
    const service = await serve({ KEY_SERVICE_DATABASE_URL: url, KEY_SERVICE_DATA_KEY: hex });
    const listed = await request(service.url, { path: KEYS, authorization: OWNER });
    assert.equal(listed.status, 200, listed.text);
  });

  test("the health URLs answer for a load balancer", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { env } = await freshDatabase();
    const service = await serve(env);
    for (const path of ["/local/1/health/live", "/local/1/health/ready"]) {
      const res = await request(service.url, { path });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
  });
});

describe("a database that goes away while serve runs", () => {
  test("requests are 503 SERVICE_UNAVAILABLE without the database's address, and the replica is not ready; it stays live", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const own = await startPostgres();
    let service: ServeProcess | undefined;
    try {
      const url = await own.createDatabase();
      const env = { KEY_SERVICE_DATABASE_URL: url, KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64") };
      await addOwner(env);
      service = await startServe({ dataDir: dir, storeArgs: [], env });
      const before = await request(service.url, { path: KEYS, authorization: OWNER });
      assert.equal(before.status, 200, before.text);
      own.stop();
      const list = await request(service.url, { path: KEYS, authorization: OWNER });
      assert.equal(list.status, 503, list.text);
      const exception = (
        list.json as { requestError: { serviceException: { messageId: string; text: string } } }
      ).requestError.serviceException;
      assert.equal(exception.messageId, "SERVICE_UNAVAILABLE");
      assert.match(exception.text, /database cannot be reached/);
      const { hostname, port, password } = new URL(url);
      for (const secret of [`${hostname}:${port}`, decodeURIComponent(password)])
        assert.equal(list.text.includes(secret), false, `the answer shows ${secret}`);
      assert.equal((await request(service.url, { path: "/local/1/health/ready" })).status, 503);
      assert.equal((await request(service.url, { path: "/local/1/health/live" })).status, 200);
    } finally {
      await service?.stop("SIGTERM");
      own.stop();
    }
  });
});

describe("refusals on PostgreSQL", () => {
  test("another data key on a database is refused at start, saying so; the database keeps its own", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { url, env } = await freshDatabase();
    await addOwner(env);
    const other = { KEY_SERVICE_DATABASE_URL: url, KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64") };
    for (const args of [
      ["serve", "--port", "0"],
      ["account", "list"],
    ]) {
      const refused = await runCli(args, other);
      assert.equal(refused.code, 1, `${args[0]}: ${refused.stderr}`);
      assert.match(refused.stderr, /not the one the database .* was created with/);
      assert.doesNotMatch(refused.stderr, new RegExp(passwordOf(url).replace(/[^\w]/g, "\\$&")));
    }
    const list = await runCli(["account", "list"], env);
    assert.equal(list.code, 0, list.stderr);
  });

  test("a database URL without a data key is refused with a line that says where to give one", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { url } = await freshDatabase();
    const refused = await runCli(["serve", "--port", "0", "--database-url", url]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /KEY_SERVICE_DATA_KEY.*--data-key-file/);
  });

  test("a data key file others can read is refused", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { url, dataKey } = await freshDatabase();
    const keyFile = join(dir, "open.key");
    await writeFile(keyFile, dataKey, { mode: 0o644 });
    const refused = await runCli(["account", "list", "--database-url", url, "--data-key-file", keyFile]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /data key file/);
  });

  test("an unreachable database fails the start without showing its password", async () => {
    const url = "postgres://keydesk:s3cret-Pa55@127.0.0.1:1/keydesk";
    const refused = await runCli(["serve", "--port", "0"], {
      KEY_SERVICE_DATABASE_URL: url,
      KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64"),
    });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /cannot open the database postgres:\/\/keydesk:\*\*\*@127\.0\.0\.1:1\/keydesk/,
    );
    assert.doesNotMatch(refused.stderr, /s3cret-Pa55/);
  });

  test("a URL that is not postgres:// or postgresql:// is a usage error that never echoes it", async () => {
    const key = { KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64") };
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [
        ["--database-url", "mysql://root:hunter2-x@db/keys"],
        key,
        /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL/,
      ],
      [[], { ...key, KEY_SERVICE_DATABASE_URL: "hunter2-x at db" }, /KEY_SERVICE_DATABASE_URL is not a URL/],
      [["--database-url", "postgres://root:hunter2-x@/keys"], key, /--database-url is not a URL/],
    ];
    for (const [args, env, expected] of cases) {
      const refused = await runCli(["serve", "--port", "0", ...args], env);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, expected);
      assert.doesNotMatch(refused.stderr, /hunter2/);
    }
    const both = await runCli(
      ["account", "list", "--data-dir", dir, "--database-url", "postgres://h/db"],
      key,
    );
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /either --data-dir .* or --database-url/);
  });

  test("check, backup, restore and keys export refuse a database URL and point to PostgreSQL's own tools", async () => {
    const url = "postgres://keydesk:hunter2-x@127.0.0.1:1/keydesk";
    const env = { KEY_SERVICE_BACKUP_PASSPHRASE: "a long enough passphrase" };
    const cases: [string[], RegExp][] = [
      [["check", "--database-url", url], /check works on a SQLite data dir/],
      [["backup", "--database-url", url, "--out", join(dir, "b.kdbackup")], /pg_dump/],
      [["restore", "--database-url", url, "--in", join(dir, "b.kdbackup")], /pg_restore/],
      [["keys", "export", "--database-url", url, "--account", "owner"], /through the API/],
    ];
    for (const [args, expected] of cases) {
      const refused = await runCli(args, env);
      assert.equal(refused.code, 2, `${args[0]}: ${refused.stderr}`);
      assert.match(refused.stderr, expected);
      assert.doesNotMatch(refused.stderr, /hunter2/);
    }
    const fromEnv = await runCli(["backup", "--out", join(dir, "b.kdbackup")], {
      ...env,
      KEY_SERVICE_DATABASE_URL: url,
    });
    assert.equal(fromEnv.code, 2, fromEnv.stderr);
    assert.match(fromEnv.stderr, /pg_dump/);
  });
});

describe("account commands on PostgreSQL", () => {
  test("add, list and passwd work on the database; serve takes the new password", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const { url, env } = await freshDatabase();
    const ownerKey = await addOwner(env);
    const sub = await runCli(
      ["account", "add", "--database-url", url, "--username", "team", "--parent", "owner"],
      {
        KEY_SERVICE_DATA_KEY: env.KEY_SERVICE_DATA_KEY,
        KEY_SERVICE_PASSWORD: "team-password",
      },
    );
    assert.equal(sub.code, 0, sub.stderr);
    const listed = await runCli(["account", "list", "--json"], env);
    assert.equal(listed.code, 0, listed.stderr);
    const accounts = (
      JSON.parse(listed.stdout) as {
        accounts: { accountKey: string; username: string; parentUsername?: string }[];
      }
    ).accounts;
    assert.deepEqual(
      accounts.map((a) => [a.accountKey, a.username, a.parentUsername ?? null]),
      [
        [ownerKey, "owner", null],
        [sub.stdout.trim(), "team", "owner"],
      ],
    );
    const changed = await runCli(["account", "passwd", "--username", "owner"], {
      ...env,
      KEY_SERVICE_PASSWORD: "a new owner password",
    });
    assert.equal(changed.code, 0, changed.stderr);
    const service = await startServe({ dataDir: dir, storeArgs: [], env });
    try {
      const old = await request(service.url, { path: KEYS, authorization: OWNER });
      assert.equal(old.status, 401, old.text);
      const fresh = await request(service.url, {
        path: KEYS,
        authorization: basic("owner", "a new owner password"),
      });
      assert.equal(fresh.status, 200, fresh.text);
    } finally {
      await service.stop("SIGTERM");
    }
  });
});
