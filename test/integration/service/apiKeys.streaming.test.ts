import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { addAccount } from "../../../electron/service/accountAdmin.ts";
import { openDataDir } from "../../../electron/service/dataDir.ts";
import { fieldsForCreate } from "../../../electron/service/domain/apiKeyRecords.ts";
import { newKeyId, newPublicApiKey } from "../../../electron/service/domain/identifiers.ts";
import {
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  SQLITE_ONLY,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * The full list of a large account is streamed with backpressure: produced as the client reads
 * it, so the service neither holds the whole answer in memory nor stops serving others meanwhile.
 */

const PASSWORD = "owner-password-1";
// Long names make the answer (about 45 MB) larger than what the sockets between a paused
// reader and the service can hold (Linux lets a loopback socket's buffers grow to 32 MB + 4 MB:
// an answer of 20 MB could be written whole before the reader resumed), so the service must wait
// for the reader. A name is at most 255 characters; these take 4 bytes each in UTF-8, so that
// fewer keys (quicker to seed) make an answer that large.
const SIZE = 40_000;
const NAME_PAD = "\u{1D11E}".repeat(248);

let dataDir: string;
let serve: ServeProcess;
const authorization = basic("owner", PASSWORD);

before(async () => {
  // The tests below are SQLite's: on PostgreSQL the 40,000 keys (several seconds) would go unread.
  if (SQLITE_ONLY) return;
  dataDir = await makeTempDir("keydesk-stream-");
  // The key file the serve process then uses too.
  const data = openDataDir({ dataDir });
  try {
    const account = await addAccount(data.store, { username: "owner", password: PASSWORD });
    const fields = fieldsForCreate({ name: `seeded ${NAME_PAD}` });
    if (!fields.ok) throw new Error("seed fields rejected");
    data.db.transaction(() => {
      for (let index = 0; index < SIZE; index++) {
        const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
        data.apiKeys.insert(
          account.id,
          account.accountKey,
          identity,
          { ...fields.value, name: `k${index} ${NAME_PAD}` },
          index,
        );
      }
    })();
  } finally {
    data.close();
  }
  serve = await startServe({ dataDir });
});
after(async () => {
  await serve?.stop("SIGKILL");
  if (dataDir) await removeDir(dataDir);
});

/** A GET of the whole list whose reader is paused until `resume` is called. */
function pausedList(): Promise<{ res: http.IncomingMessage; body: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${serve.url}/settings/1/accounts/_/api-keys`,
      { headers: { authorization } },
      (res) => {
        res.pause();
        const chunks: Buffer[] = [];
        resolve({
          res,
          body: () =>
            new Promise((resolveBody, rejectBody) => {
              res.on("data", (chunk: Buffer) => chunks.push(chunk));
              res.on("end", () => resolveBody(Buffer.concat(chunks).toString("utf8")));
              res.on("error", rejectBody);
              res.resume();
            }),
        });
      },
    );
    req.on("error", reject);
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a full list of a large account", { skip: SQLITE_ONLY }, () => {
  test("is streamed: a key created while the reader is paused is at the end of the list being read", async () => {
    const list = await pausedList();
    assert.equal(list.res.statusCode, 200);
    assert.equal(list.res.headers["transfer-encoding"], "chunked");
    assert.match(String(list.res.headers["content-type"]), /^application\/json/);
    await pause(300);
    // Served while the list is in flight (the service is not busy building it).
    const created = await request(serve.url, {
      method: "POST",
      path: "/settings/1/accounts/_/api-keys",
      authorization,
      body: { name: "created while a list was being read" },
    });
    assert.equal(created.status, 200, created.text);
    const text = await list.body();
    // More than the sockets can hold (above), or the test would not show the service waiting.
    assert.ok(Buffer.byteLength(text) > 40_000_000, `the answer is ${Buffer.byteLength(text)} bytes`);
    const body = JSON.parse(text) as { apiKeys: { key: string; name: string }[] };
    assert.deepEqual(Object.keys(body), ["apiKeys"]);
    assert.equal(body.apiKeys.length, SIZE + 1);
    assert.equal(body.apiKeys[0]?.name, `k0 ${NAME_PAD}`);
    assert.equal(body.apiKeys.at(-1)?.key, (created.json as { key: string }).key);
  });

  test("a stop while a paused reader holds a list ends the list and exits 0", async () => {
    const list = await pausedList();
    await pause(300);
    const ended = new Promise<string>((resolve) => {
      list.res.on("aborted", () => resolve("aborted"));
      list.res.on("error", () => resolve("error"));
      list.res.on("end", () => resolve("end"));
    });
    const exit = await serve.stop("SIGTERM");
    assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, serve.stderr());
    list.res.resume();
    // Cut short: never a whole answer that a client could take for every key.
    assert.notEqual(await ended, "end");
  });
});
