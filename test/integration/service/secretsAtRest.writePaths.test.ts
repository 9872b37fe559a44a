import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import type { SyncLinkDto, SyncOutboxEntryDto } from "../../../shared/sync.ts";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { addAccount, makeTempDir, removeDir, SQLITE_ONLY } from "../../harness/keyServiceProcess.ts";
import { eventually, outbox, PASSWORD, runLink, Side } from "../sync/syncFixture.ts";

/**
 * No publicApiKey ever rests in clear, whichever write put it there: after each write path (API
 * create and update, the 2FA key create, remembered idempotent creates, a sync pull, pushes to a
 * remote that refuses a create or its credentials, discarding an outbox entry, a push that
 * succeeds and replaces the local publicApiKey), every column of every table and the raw bytes of
 * the database, its WAL and shared-memory file (free pages and gaps in pages included: deleted
 * content is still in those bytes unless it was zeroed) are searched for every publicApiKey seen
 * so far, in the forms it could be stored as. (Key rotation does not exist yet; when it does, it
 * belongs here.)
 */

const DB_FILES = ["keydesk.db", "keydesk.db-wal", "keydesk.db-shm", "keydesk.db-journal"];
const KEYS = "/settings/1/accounts/_/api-keys";
const FOREIGN_PASSWORD = `foreign-Remote-Pass-${randomBytes(6).toString("hex")}`;

/** The byte patterns a secret could be stored as: text (UTF-8, UTF-16) and, for a 32hex-uuid, its hex part as bytes. */
function encodings(secret: string): Buffer[] {
  const forms = [Buffer.from(secret, "utf8"), Buffer.from(secret, "utf16le")];
  if (/^[0-9a-f]{32}-/i.test(secret)) forms.push(Buffer.from(secret.slice(0, 32), "hex"));
  return forms;
}

function findSecret(haystack: Buffer, secrets: Map<string, string>): string | undefined {
  for (const [label, secret] of secrets) {
    for (const form of encodings(secret)) if (haystack.indexOf(form) !== -1) return `${label} (${secret})`;
  }
  return undefined;
}

/** Every value of every column of every table, read through SQLite (the WAL's committed state included). */
function scanRows(dbFile: string, secrets: Map<string, string>, after: string): Map<string, number> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  const rowsPerTable = new Map<string, number>();
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all() as string[];
    for (const table of tables) {
      const rows = db.prepare(`SELECT * FROM "${table.replaceAll('"', '""')}"`).all() as Record<
        string,
        unknown
      >[];
      rowsPerTable.set(table, rows.length);
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          const bytes =
            typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.isBuffer(value) ? value : null;
          if (!bytes) continue;
          const found = findSecret(bytes, secrets);
          assert.equal(found, undefined, `after ${after}: ${found} in ${table}.${column}`);
        }
      }
    }
  } finally {
    db.close();
  }
  return rowsPerTable;
}

/** The files' bytes, whole: live rows, free pages, gaps in pages, old WAL frames. */
async function scanFiles(dir: string, secrets: Map<string, string>, after: string): Promise<Buffer> {
  const files = DB_FILES.filter((name) => existsSync(join(dir, name)));
  const bytes = Buffer.concat(await Promise.all(files.map((name) => readFile(join(dir, name)))));
  const found = findSecret(bytes, secrets);
  assert.equal(found, undefined, `after ${after}: ${found} in the bytes of ${files.join(" + ")}`);
  return bytes;
}

describe("no publicApiKey in clear anywhere in the database files, after every write path", {
  skip: SQLITE_ONLY,
}, () => {
  let local: Side;
  let foreign: ForeignRemote;
  let link: SyncLinkDto;
  const secrets = new Map<string, string>([
    ["account password", PASSWORD],
    ["the foreign remote's password", FOREIGN_PASSWORD],
  ]);
  /** Non-secret ids of the keys written: the scan must find these, or it is not reading what was written. */
  const keyIds: string[] = [];

  const remember = (label: string, key: { key: string; publicApiKey: string }) => {
    secrets.set(`publicApiKey of ${label}`, key.publicApiKey);
    keyIds.push(key.key);
  };

  async function assertNoSecretAtRest(after: string): Promise<Map<string, number>> {
    const rows = scanRows(join(local.dataDir, "keydesk.db"), secrets, after);
    const bytes = await scanFiles(local.dataDir, secrets, after);
    for (const id of keyIds) assert.notEqual(bytes.indexOf(id), -1, `key id ${id} is in the files`);
    return rows;
  }

  const entriesOf = async (key: string): Promise<SyncOutboxEntryDto[]> =>
    (await outbox(local, link.id)).filter((entry) => entry.key === key);

  before(async () => {
    foreign = await startForeignRemote("foreign-admin", FOREIGN_PASSWORD);
    local = new Side("local", await makeTempDir("keydesk-at-rest-"), "owner");
    await addAccount(local.dataDir, local.username, PASSWORD);
    await local.start();
    secrets.set("data key", (await readFile(join(local.dataDir, "data.key"), "utf8")).trim());
  });

  after(async () => {
    await local?.stop();
    await foreign?.close();
    if (local) await removeDir(local.dataDir);
  });

  test("API create and update", async () => {
    const plain = await local.createKey({ name: "plain" });
    const restricted = await local.createKey({
      name: "restricted",
      allowedIPs: ["192.0.2.0/24"],
      validTo: "2040-01-01T00:00:00.000+0000",
    });
    await local.updateKey(restricted.key, { name: "restricted, renamed", enabled: false });
    remember("an API create", plain);
    remember("an API create, then updated", restricted);
    await assertNoSecretAtRest("API creates and an update");
  });

  test("the 2FA api-key create", async () => {
    const created = await local.call<string>("POST", "/2fa/2/api-key");
    assert.equal(created.status, 200, created.text);
    const [key] = (
      await local.ok<{ apiKeys: { key: string; publicApiKey: string }[] }>(
        "GET",
        `${KEYS}?publicApiKey=${created.json}`,
      )
    ).apiKeys;
    assert.ok(key);
    remember("a 2FA create", key);
    await assertNoSecretAtRest("the 2FA api-key create");
  });

  test("remembered idempotent creates (both create routes)", async () => {
    const headers = { "idempotency-key": `at-rest-${randomUUID()}` };
    const created = await local.call<{ key: string; publicApiKey: string }>(
      "POST",
      KEYS,
      { name: "idempotent" },
      headers,
    );
    assert.equal(created.status, 200, created.text);
    remember("an idempotent create", created.json);
    const replayed = await local.call("POST", KEYS, { name: "idempotent" }, headers);
    assert.equal(replayed.text, created.text, "the remembered answer is replayed");
    const tfa = await local.call<string>("POST", "/2fa/2/api-key", undefined, {
      "idempotency-key": `at-rest-${randomUUID()}`,
    });
    assert.equal(tfa.status, 200, tfa.text);
    const [tfaKey] = (
      await local.ok<{ apiKeys: { key: string; publicApiKey: string }[] }>(
        "GET",
        `${KEYS}?publicApiKey=${tfa.json}`,
      )
    ).apiKeys;
    assert.ok(tfaKey);
    remember("an idempotent 2FA create", tfaKey);
    const rows = await assertNoSecretAtRest("idempotent creates");
    assert.equal(rows.get("idempotent_requests"), 2, "the remembered answers were scanned");
  });

  test("a sync pull mirrors the remote's keys", async () => {
    for (const name of ["remote one", "remote two"]) {
      const key = {
        name,
        key: `key_${randomUUID()}`,
        publicApiKey: `${randomBytes(16).toString("hex")}-${randomUUID()}`,
        accountKey: "acct-at-rest",
        permissions: ["ALL"],
        enabled: true,
      };
      foreign.keys.set(key.key, key);
      secrets.set(`publicApiKey of remote key ${name}`, key.publicApiKey);
    }
    link = await local.ok<SyncLinkDto>("POST", "/local/1/sync/links", {
      accountKey: "_",
      remote: { baseUrl: foreign.url, username: foreign.username, password: FOREIGN_PASSWORD },
      intervalSeconds: 3600,
    });
    const state = await runLink(local, link.id);
    assert.equal(state.lastError, null);
    const mirrored = (await local.keys()).filter((key) => key.name.startsWith("remote "));
    assert.equal(mirrored.length, 2);
    keyIds.push(...mirrored.map((key) => key.key));
    const rows = await assertNoSecretAtRest("a sync pull");
    assert.equal(rows.get("sync_keys"), 2, "the linked keys were scanned");
  });

  test("a push the remote refuses (400): the create is failed, its attempt recorded", async () => {
    foreign.fail({ method: "POST", status: 400 });
    const refused = await local.createKey({ name: "refused create", allowedIPs: ["198.51.100.7"] });
    remember("a create the remote refused", refused);
    await runLink(local, link.id);
    const [entry] = await eventually("the refused create is failed", async () => {
      const entries = await entriesOf(refused.key);
      return entries[0]?.failed ? entries : undefined;
    });
    assert.ok(entry && entry.kind === "create" && entry.attempts >= 1, JSON.stringify(entry));
    await assertNoSecretAtRest("a create refused by the remote");
  });

  test("a push refused for its credentials (401): the create stays pending, attempted", async () => {
    foreign.fail({ method: "POST", status: 401 });
    const pending = await local.createKey({ name: "pending create", permissions: ["TFA"] });
    remember("a create left pending", pending);
    await runLink(local, link.id);
    const paused = await eventually("the link is paused for its credentials", async () => {
      const state = await local.ok<SyncLinkDto>("GET", `/local/1/sync/links/${link.id}`);
      return state.pausedReason === "credentials" ? state : undefined;
    });
    assert.equal(paused.state, "paused");
    const [entry] = await entriesOf(pending.key);
    assert.ok(entry && !entry.failed && entry.attempts >= 1, JSON.stringify(entry));
    const rows = await assertNoSecretAtRest("a create left pending");
    assert.ok((rows.get("sync_outbox") ?? 0) >= 2, "the outbox rows were scanned");
  });

  test("discarding the failed create, then updating that key (now local-only)", async () => {
    const refused = (await local.keys()).find((key) => key.name === "refused create");
    assert.ok(refused);
    const [entry] = await entriesOf(refused.key);
    assert.ok(entry);
    const discarded = await local.call("DELETE", `/local/1/sync/links/${link.id}/outbox/${entry.id}`);
    assert.equal(discarded.status, 204, discarded.text);
    await local.updateKey(refused.key, { name: "refused create, kept local" });
    assert.deepEqual(await entriesOf(refused.key), []);
    await assertNoSecretAtRest("discarding an outbox entry and a key update");
  });

  test("a push that goes through: outbox rows deleted, the local publicApiKey replaced by the remote's", async () => {
    await local.ok("PUT", `/local/1/sync/links/${link.id}`, {
      remote: { username: foreign.username, password: FOREIGN_PASSWORD },
    });
    const pending = (await local.keys()).find((key) => key.name === "pending create");
    assert.ok(pending);
    const state = await eventually("the pending create is pushed", async () => {
      const run = await runLink(local, link.id);
      return run.pending === 0 ? run : undefined;
    });
    assert.equal(state.failed, 0, state.lastError ?? "");
    const now = (await local.keys()).find((key) => key.key === pending.key);
    const remote = [...foreign.keys.values()].find((key) => key.name === "pending create");
    assert.ok(
      now && remote && now.publicApiKey === remote.publicApiKey,
      "the remote's publicApiKey is taken",
    );
    secrets.set("publicApiKey the remote gave the pushed key", remote.publicApiKey);
    const rows = await assertNoSecretAtRest("a successful push");
    assert.equal(rows.get("sync_outbox"), 0, "every outbox row was deleted");
  });

  test("after a clean stop (checkpoint into the database file), still nothing", async () => {
    await local.stop("SIGTERM");
    assert.ok(!existsSync(join(local.dataDir, "keydesk.db-wal")), "the WAL was checkpointed and removed");
    const bytes = await scanFiles(local.dataDir, secrets, "a clean stop");
    for (const id of keyIds) assert.notEqual(bytes.indexOf(id), -1, `key id ${id} is in the database file`);
    scanRows(join(local.dataDir, "keydesk.db"), secrets, "a clean stop");
  });
});
