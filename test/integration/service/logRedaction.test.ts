import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * A real `serve` process logging at info (its default) sees a publicApiKey in URLs under names
 * that only nearly match `publicApiKey`, and in the path: its log (JSON lines on stderr) must not
 * hold the key in any form.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const admin = basic("admin", "admin-secret-1");
let dir: string;
let server: ServeProcess;
let log: string;
let publicApiKey: string;

before(async () => {
  dir = await makeTempDir("keydesk-log-redaction-");
  await addAccount(dir, "admin", "admin-secret-1");
  server = await startServe({ dataDir: dir, args: ["--log-level", "info"] });
  const created = await request(server.url, {
    method: "POST",
    path: KEYS,
    authorization: admin,
    body: { name: "logged" },
  });
  assert.equal(created.status, 200, created.text);
  publicApiKey = (created.json as { publicApiKey: string }).publicApiKey;
  const encoded = [...publicApiKey].map((char) => `%${char.charCodeAt(0).toString(16)}`).join("");
  for (const path of [
    // The four near-misses.
    `${KEYS}?publicApiKey[]=${publicApiKey}`,
    `${KEYS}?publicApiKey%5B%5D=${publicApiKey}`,
    `${KEYS}?publicApiKey%00=${publicApiKey}`,
    `${KEYS}?name=a?publicApiKey=${publicApiKey}`,
    // And elsewhere: the path, another parameter, fully percent-encoded.
    `${KEYS}/${publicApiKey}`,
    `${KEYS}?name=${publicApiKey}`,
    `${KEYS}?name=${encoded}`,
  ]) {
    await request(server.url, { path, authorization: admin });
  }
  // The log is written asynchronously; it is complete once the process has exited.
  const exit = await server.stop("SIGTERM");
  assert.equal(exit.code, 0, server.stderr());
  log = server.stderr();
});
after(async () => {
  await removeDir(dir);
});

test("the requests were logged, with the key redacted", () => {
  assert.match(log, /publicApiKey\[\]=\[redacted\]/);
  assert.match(log, /publicApiKey%5B%5D=\[redacted\]/);
  assert.match(log, /publicApiKey%00=\[redacted\]/);
  assert.match(log, /name=a\?publicApiKey=\[redacted\]/);
});

test("the log holds the publicApiKey in no form", () => {
  const forms = {
    raw: publicApiKey,
    "percent-encoded": [...publicApiKey].map((char) => `%${char.charCodeAt(0).toString(16)}`).join(""),
    "its 32-hex part": publicApiKey.slice(0, 32),
    "its UUID part": publicApiKey.slice(33),
  };
  for (const [form, value] of Object.entries(forms))
    assert.ok(!log.toLowerCase().includes(value.toLowerCase()), `the log holds the key (${form})`);
});
