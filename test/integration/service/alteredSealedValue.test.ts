import assert from "node:assert/strict";
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
 * A sealed value altered in the database (by someone who could write the file) is a damaged
 * database: the requests that need it answer 503 SERVICE_UNAVAILABLE saying so and what to do,
 * never a 500 or anything of the value; everything else goes on answering.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const VICTIM = basic("victim", "victim-password-1");
const OTHER = basic("other", "other-password-12");

describe("an altered sealed value", { skip: SQLITE_ONLY }, () => {
  let dir: string;
  let serve: ServeProcess;
  let altered: string;

  before(async () => {
    dir = await makeTempDir("keydesk-altered-");
    await addAccount(dir, "victim", "victim-password-1");
    await addAccount(dir, "other", "other-password-12");
    serve = await startServe({ dataDir: dir });
    for (const [auth, name] of [
      [VICTIM, "altered"],
      [VICTIM, "intact"],
      [OTHER, "elsewhere"],
    ] as const) {
      const res = await request(serve.url, {
        method: "POST",
        path: KEYS,
        authorization: auth,
        body: { name },
      });
      assert.equal(res.status, 200, res.text);
      if (name === "altered") altered = (res.json as { key: string }).key;
    }
    await serve.stop();
    const db = new Database(join(dir, "keydesk.db"));
    const { sealed } = db
      .prepare("SELECT public_api_key_sealed AS sealed FROM api_keys WHERE key = ?")
      .get(altered) as {
      sealed: Buffer;
    };
    sealed[sealed.length - 1] = (sealed.at(-1) as number) ^ 1;
    db.prepare("UPDATE api_keys SET public_api_key_sealed = ? WHERE key = ?").run(sealed, altered);
    db.close();
    serve = await startServe({ dataDir: dir });
  });
  after(async () => {
    await serve?.stop();
    await removeDir(dir);
  });

  test("its key, and the lists holding it, answer 503 naming a damaged database; the process stays up", async () => {
    for (const path of [`${KEYS}/${altered}`, KEYS, `${KEYS}?limit=10`, `${KEYS}?sort=name&limit=10`]) {
      const res = await request(serve.url, { path, authorization: VICTIM });
      assert.equal(res.status, 503, `${path}: ${res.text}`);
      const text = (res.json as { requestError: { serviceException: { messageId: string; text: string } } })
        .requestError.serviceException;
      assert.equal(text.messageId, "SERVICE_UNAVAILABLE");
      assert.match(text.text, /is damaged \(a sealed value in it does not open with the data key/);
    }
    const elsewhere = await request(serve.url, { path: KEYS, authorization: OTHER });
    assert.equal(elsewhere.status, 200, "another account's keys answer");
    const ready = await request(serve.url, { path: "/local/1/health/ready" });
    assert.equal(ready.status, 200);
  });
});
