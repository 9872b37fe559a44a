import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  SQLITE_ONLY,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Secrets never rest in clear: not in the SQLite file, not in its write-ahead log (while the
 * service runs and after it stopped), not in the debug log. File modes keep the rest private.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const ADMIN = { username: "vault-admin", password: "Pa55-vault-ADMIN-7f3a9c-§" };
const SUB = { username: "vault-sub", password: "sub-Secret-Xq81-zzz-ü" };
const WRONG_PASSWORD = "wrong-Guess-4471-qwerty";
const UNKNOWN_USER = { username: "nobody-here", password: "Unknown-User-Pass-9921" };
const DB_FILES = ["keydesk.db", "keydesk.db-wal", "keydesk.db-shm", "keydesk.db-journal"];

/** The byte patterns a secret could be stored as. */
function encodings(secret: string): Buffer[] {
  const forms = [Buffer.from(secret, "utf8"), Buffer.from(secret, "utf16le")];
  if (/^[0-9a-f]{32}-/.test(secret)) forms.push(Buffer.from(secret.slice(0, 32), "hex"));
  return forms;
}

function assertAbsent(haystack: Buffer, secrets: Record<string, string>, where: string): void {
  for (const [label, secret] of Object.entries(secrets)) {
    for (const form of encodings(secret)) {
      assert.equal(haystack.indexOf(form), -1, `${label} (${secret}) found in ${where}`);
    }
  }
}

async function readDbFiles(dir: string): Promise<{ bytes: Buffer; files: string[] }> {
  const files = DB_FILES.filter((name) => existsSync(join(dir, name)));
  const contents = await Promise.all(files.map((name) => readFile(join(dir, name))));
  return { bytes: Buffer.concat(contents), files };
}

describe("secrets at rest and in the log", { skip: SQLITE_ONLY }, () => {
  let dir: string;
  let server: ServeProcess;
  const admin = basic(ADMIN.username, ADMIN.password);
  const sub = basic(SUB.username, SUB.password);
  const created: { key: string; publicApiKey: string }[] = [];
  const ibssoTokens: string[] = [];
  let dataKeyText: string;

  before(async () => {
    dir = await makeTempDir();
    await addAccount(dir, ADMIN.username, ADMIN.password);
    await addAccount(dir, SUB.username, SUB.password, ADMIN.username);
    dataKeyText = (await readFile(join(dir, "data.key"), "utf8")).trim();
    server = await startServe({ dataDir: dir, args: ["--log-level", "debug"] });

    for (const [auth, name] of [
      [admin, "admin key"],
      [admin, "admin key 2"],
      [sub, "sub key"],
    ] as const) {
      const response = await request(server.url, {
        method: "POST",
        path: KEYS,
        authorization: auth,
        body: { name },
      });
      assert.equal(response.status, 200, response.text);
      created.push(response.json as { key: string; publicApiKey: string });
    }
    const tfa = await request(server.url, { method: "POST", path: "/2fa/2/api-key", authorization: admin });
    assert.equal(tfa.status, 200, tfa.text);
    const tfaLookup = await request(server.url, {
      path: `${KEYS}?publicApiKey=${tfa.json as string}`,
      authorization: admin,
    });
    const [tfaKey] = (tfaLookup.json as { apiKeys: { key: string; publicApiKey: string }[] }).apiKeys;
    assert.ok(tfaKey, tfaLookup.text);
    created.push(tfaKey);

    // Creates with an Idempotency-Key: their answers (publicApiKey included) are remembered, sealed.
    const idempotent = { "idempotency-key": "vault-idempotent-1" };
    const remembered = await request(server.url, {
      method: "POST",
      path: KEYS,
      authorization: admin,
      body: { name: "idempotent key" },
      headers: idempotent,
    });
    assert.equal(remembered.status, 200, remembered.text);
    const replayed = await request(server.url, {
      method: "POST",
      path: KEYS,
      authorization: admin,
      body: { name: "idempotent key" },
      headers: idempotent,
    });
    assert.equal(replayed.text, remembered.text, "the remembered answer is replayed");
    created.push(remembered.json as { key: string; publicApiKey: string });
    const tfaRemembered = await request(server.url, {
      method: "POST",
      path: "/2fa/2/api-key",
      authorization: sub,
      headers: idempotent,
    });
    assert.equal(tfaRemembered.status, 200, tfaRemembered.text);
    const tfaRememberedLookup = await request(server.url, {
      path: `${KEYS}?publicApiKey=${tfaRemembered.json as string}`,
      authorization: sub,
    });
    const [tfaRememberedKey] = (
      tfaRememberedLookup.json as { apiKeys: { key: string; publicApiKey: string }[] }
    ).apiKeys;
    assert.ok(tfaRememberedKey, tfaRememberedLookup.text);
    created.push(tfaRememberedKey);

    // Traffic that carries secrets in every place a request can: query, App header, Basic header.
    for (const { publicApiKey } of created) {
      const lookups = [
        `${KEYS}?publicApiKey=${publicApiKey}`,
        `${KEYS}?name=x&publicApiKey=${encodeURIComponent(publicApiKey)}`,
        `${KEYS}?PUBLICAPIKEY=${publicApiKey}`,
        `${KEYS}?public%41piKey=${publicApiKey}`,
        `${KEYS}?%70ublicApiKey=${encodeURIComponent(publicApiKey)}&enabled=true`,
        `${KEYS}?publicApiKey=${publicApiKey}&publicApiKey=${publicApiKey}`,
        `/no/such/route?publicApiKey=${publicApiKey}`,
      ];
      for (const path of lookups) await request(server.url, { path, authorization: admin });
      await request(server.url, { path: KEYS, authorization: `App ${publicApiKey}` });
      await request(server.url, {
        method: "POST",
        path: "/2fa/2/api-key",
        authorization: `App ${publicApiKey}`,
      });
    }
    // IBSSO sessions: the login's body carries the password, the token then rides the header.
    for (let session = 0; session < 2; session++) {
      const login = await request(server.url, {
        method: "POST",
        path: "/auth/1/session",
        body: { username: ADMIN.username, password: ADMIN.password },
      });
      assert.equal(login.status, 200, login.text);
      const { token } = login.json as { token: string };
      ibssoTokens.push(token);
      await request(server.url, { path: "/2fa/2/applications", authorization: `IBSSO ${token}` });
      await request(server.url, { path: KEYS, authorization: `IBSSO ${token}` });
    }
    await request(server.url, {
      method: "DELETE",
      path: "/auth/1/session",
      authorization: `IBSSO ${ibssoTokens[1]}`,
    });
    for (const auth of [
      basic(ADMIN.username, WRONG_PASSWORD),
      basic(UNKNOWN_USER.username, UNKNOWN_USER.password),
      basic(SUB.username, ADMIN.password),
    ]) {
      const refused = await request(server.url, { path: KEYS, authorization: auth });
      assert.equal(refused.status, 401, refused.text);
    }
  });

  after(async () => {
    await server?.stop("SIGKILL");
    await removeDir(dir);
  });

  const secrets = () => {
    const all: Record<string, string> = {
      "admin password": ADMIN.password,
      "sub-account password": SUB.password,
      "wrong password tried": WRONG_PASSWORD,
      "unknown user's password": UNKNOWN_USER.password,
      "data key (base64)": dataKeyText,
    };
    for (const [index, { publicApiKey }] of created.entries()) all[`publicApiKey #${index}`] = publicApiKey;
    for (const [index, token] of ibssoTokens.entries()) all[`IBSSO token #${index}`] = token;
    return all;
  };

  test("while the service runs, no publicApiKey, password or data key is in the database or its WAL", async () => {
    const { bytes, files } = await readDbFiles(dir);
    assert.ok(files.includes("keydesk.db-wal"), `the WAL exists while serving (files: ${files.join(", ")})`);
    // The scan reads the bytes the keys were written to: their (non-secret) ids are in the WAL,
    // which has not been checkpointed into the database yet.
    const wal = await readFile(join(dir, "keydesk.db-wal"));
    for (const { key } of created) assert.notEqual(wal.indexOf(key), -1, `key id ${key} is in the WAL`);
    assertAbsent(bytes, secrets(), `${files.join(" + ")} (running)`);
    assert.equal(bytes.indexOf(Buffer.from(dataKeyText, "base64")), -1, "raw data key bytes in the database");
  });

  test("data.key, the database and its WAL are readable by their owner only (0600)", async () => {
    for (const name of ["data.key", ...DB_FILES]) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      const mode = (await stat(path)).mode & 0o777;
      assert.equal(mode.toString(8), "600", `${name} has mode ${mode.toString(8)}`);
    }
  });

  test("the debug log holds no publicApiKey, no password and no Basic credentials", async () => {
    const log = server.stderr();
    // The log is not empty: every request above was logged, with the secret query values redacted.
    assert.match(log, /incoming request/);
    assert.match(log, /publicApiKey=\[redacted\]/);
    const credentials: Record<string, string> = {};
    for (const [username, password] of [
      [ADMIN.username, ADMIN.password],
      [SUB.username, SUB.password],
      [ADMIN.username, WRONG_PASSWORD],
      [UNKNOWN_USER.username, UNKNOWN_USER.password],
      [SUB.username, ADMIN.password],
    ]) {
      credentials[`Basic credentials of ${username}`] = Buffer.from(`${username}:${password}`).toString(
        "base64",
      );
    }
    assertAbsent(Buffer.from(log, "utf8"), { ...secrets(), ...credentials }, "the service log");
    assert.doesNotMatch(log, /authorization/i, "no Authorization header is logged");
  });

  test("after SIGTERM the checkpointed database still holds no secret in clear", async () => {
    const exit = await server.stop("SIGTERM");
    assert.deepEqual(exit, { code: 0, signal: null }, server.stderr());
    const { bytes, files } = await readDbFiles(dir);
    assert.ok(files.includes("keydesk.db"));
    for (const { key } of created)
      assert.notEqual(bytes.indexOf(key), -1, `key id ${key} is in the database`);
    assertAbsent(bytes, secrets(), `${files.join(" + ")} (stopped)`);
    assert.equal(bytes.indexOf(Buffer.from(dataKeyText, "base64")), -1, "raw data key bytes in the database");
    const mode = (await stat(join(dir, "keydesk.db"))).mode & 0o777;
    assert.equal(mode.toString(8), "600");
    assertAbsent(Buffer.from(server.stderr(), "utf8"), secrets(), "the service log after shutdown");
    // The scan covered the remembered answers: both records are in the database, sealed.
    const db = new Database(join(dir, "keydesk.db"), { readonly: true });
    try {
      const rows = db
        .prepare("SELECT idempotency_key, length(response_sealed) AS size FROM idempotent_requests")
        .all() as { idempotency_key: string; size: number }[];
      assert.deepEqual(
        rows.map((row) => row.idempotency_key),
        ["vault-idempotent-1", "vault-idempotent-1"],
      );
      for (const row of rows) assert.ok(row.size > 28, "a sealed answer is stored");
    } finally {
      db.close();
    }
  });
});
