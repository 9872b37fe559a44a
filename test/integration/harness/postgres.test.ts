import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import pg from "pg";
import {
  type PostgresCluster,
  postgresMissing,
  skipWithoutPostgres,
  startPostgres,
} from "../../harness/postgres.ts";

let cluster: PostgresCluster | undefined;

before(async () => {
  if (postgresMissing) return;
  const started = Date.now();
  cluster = await startPostgres();
  console.log(`PostgreSQL cluster started in ${Date.now() - started} ms`);
});

after(() => cluster?.stop());

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

test("a fresh database on the private cluster answers queries", async (t) => {
  if (skipWithoutPostgres(t) || !cluster) return;
  const url = await cluster.createDatabase();
  const result = await query(url, "SELECT current_database() AS name, 1 + 1 AS two");
  assert.equal(result.rows[0].two, 2);
  assert.match(result.rows[0].name, /^test_/);
});

test("each database is a fresh one: a table made in one is not in the next", async (t) => {
  if (skipWithoutPostgres(t) || !cluster) return;
  const first = await cluster.createDatabase();
  const second = await cluster.createDatabase();
  assert.notEqual(first, second);
  await query(first, "CREATE TABLE only_here (id integer)");
  const seen = await query(second, "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_here'");
  assert.equal(seen.rows[0].n, 0);
});

test("the cluster listens on loopback only and wants its generated password", async (t) => {
  if (skipWithoutPostgres(t) || !cluster) return;
  const listen = await query(cluster.url(), "SHOW listen_addresses");
  assert.equal(listen.rows[0].listen_addresses, "127.0.0.1");
  const wrong = new URL(cluster.url());
  wrong.password = "not-the-password";
  await assert.rejects(query(wrong.toString(), "SELECT 1"), /password authentication failed/);
});

test("stop ends the server and removes its directory (the last test: it stops the file's cluster)", async (t) => {
  if (skipWithoutPostgres(t) || !cluster) return;
  const url = cluster.url();
  cluster.stop();
  assert.equal(existsSync(cluster.dir), false);
  await assert.rejects(query(url, "SELECT 1"), /ECONNREFUSED/);
  cluster.stop();
});
