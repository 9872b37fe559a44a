import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { postgresClusterForFile, skipWithoutPostgres } from "../../harness/postgres.ts";

/**
 * `key-service migrate --from-sqlite DIR --database-url URL`, run as docs/team-server.md shows it: a data dir a
 * team's `serve` used (an account made with the CLI, keys created over HTTP), moved into an empty
 * PostgreSQL database, after which `serve --database-url` with the dir's data key answers the same
 * keys with the same publicApiKeys. A database that already holds data is refused, untouched.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const OWNER = basic("owner", "owner-password");

const postgres = postgresClusterForFile();
let dir: string;

before(async () => {
  dir = await makeTempDir("keydesk-migrate-");
});

after(async () => {
  await removeDir(dir);
});

interface Key {
  key: string;
  name: string;
  publicApiKey: string;
  enabled: boolean;
}

test("a data dir moves into PostgreSQL whole, and serve on the database answers its keys", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const dataDir = join(dir, "team");
  const added = await runCli(["account", "add", "--data-dir", dataDir, "--username", "owner"], {
    KEY_SERVICE_PASSWORD: "owner-password",
  });
  assert.equal(added.code, 0, added.stderr);
  const sqlite = await startServe({ dataDir });
  for (const name of ["billing", "reports", "mobile"]) {
    const created = await request(sqlite.url, {
      method: "POST",
      path: KEYS,
      authorization: OWNER,
      body: { name },
    });
    assert.equal(created.status, 200, created.text);
  }
  const listedBefore = (await request(sqlite.url, { path: KEYS, authorization: OWNER })).json as {
    apiKeys: Key[];
  };
  await request(sqlite.url, {
    method: "PUT",
    path: `${KEYS}/${listedBefore.apiKeys[1]?.key}`,
    authorization: OWNER,
    body: { enabled: false },
  });
  assert.equal((await sqlite.stop("SIGTERM")).code, 0);
  const expected = ((await startAndList(dataDir)) as { apiKeys: Key[] }).apiKeys;

  const url = await postgres.cluster().createDatabase();
  const migrated = await runCli(["migrate", "--from-sqlite", dataDir, "--database-url", url]);
  assert.equal(migrated.code, 0, migrated.stderr);
  assert.match(migrated.stdout, /api_keys: 3 rows/);
  assert.match(migrated.stdout, /3 keys looked up by their publicApiKey and found identical/);
  assert.ok(!migrated.stdout.includes(new URL(url).password), "the database password is not printed");

  const replica = await startServe({
    dataDir,
    storeArgs: ["--database-url", url, "--data-key-file", join(dataDir, "data.key")],
  });
  try {
    const listed = await request(replica.url, { path: KEYS, authorization: OWNER });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json as { apiKeys: Key[] }).apiKeys,
      expected,
      "the same keys, states and publicApiKeys",
    );
    const disabled = expected.find((key) => !key.enabled);
    assert.equal(disabled?.name, "reports");
  } finally {
    assert.equal((await replica.stop("SIGTERM")).code, 0);
  }

  const again = await runCli(["migrate", "--from-sqlite", dataDir], { KEY_SERVICE_DATABASE_URL: url });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already holds rows in \w+: the copy goes into an empty database only/);
});

test("a folder without Keydesk data, or no database named, is refused before anything is written", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const url = await postgres.cluster().createDatabase();
  const empty = await makeTempDir("keydesk-migrate-empty-");
  t.after(() => removeDir(empty));
  const nothing = await runCli(["migrate", "--from-sqlite", empty, "--database-url", url]);
  assert.equal(nothing.code, 1);
  assert.match(nothing.stderr, /holds no Keydesk data/);
  const unnamed = await runCli(["migrate", "--from-sqlite", empty]);
  assert.equal(unnamed.code, 2);
  assert.match(unnamed.stderr, /name the PostgreSQL database/);
});

test("a data dir a serve is running on is refused, the database left empty; once the serve stopped, it moves", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const dataDir = join(dir, "live");
  const added = await runCli(["account", "add", "--data-dir", dataDir, "--username", "owner"], {
    KEY_SERVICE_PASSWORD: "owner-password",
  });
  assert.equal(added.code, 0, added.stderr);
  const url = await postgres.cluster().createDatabase();
  const running = await startServe({ dataDir });
  let refused: Awaited<ReturnType<typeof runCli>>;
  try {
    refused = await runCli(["migrate", "--from-sqlite", dataDir, "--database-url", url]);
  } finally {
    assert.equal((await running.stop("SIGTERM")).code, 0);
  }
  assert.equal(refused.code, 1, refused.stdout);
  assert.equal(
    refused.stderr,
    `key-service: ${dataDir} is in use by a running key service (key-service serve, the Keydesk app, or another key-service command): stop it first\n`,
  );
  const moved = await runCli(["migrate", "--from-sqlite", dataDir, "--database-url", url]);
  assert.equal(moved.code, 0, moved.stderr);
  assert.match(moved.stdout, /accounts: 1 rows/);
});

async function startAndList(dataDir: string): Promise<unknown> {
  const service = await startServe({ dataDir });
  try {
    return (await request(service.url, { path: KEYS, authorization: OWNER })).json;
  } finally {
    await service.stop("SIGTERM");
  }
}
