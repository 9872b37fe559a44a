import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  SQLITE_ONLY,
  startServe,
} from "../../../harness/keyServiceProcess.ts";
import { assertOk } from "../serviceFixture.ts";

/** PINs and message texts are stored sealed and never logged, even at the most verbose log level. */

let dataDir: string;
let serve: ServeProcess;
const auth = basic("owner", "owner-secret-1");

before(async () => {
  dataDir = await makeTempDir("keydesk-tfa-secrets-");
  await addAccount(dataDir, "owner", "owner-secret-1");
  serve = await startServe({ dataDir, env: { KEY_SERVICE_LOG_LEVEL: "trace" } });
});
after(async () => {
  if (serve) await serve.stop("SIGTERM");
  await removeDir(dataDir);
});

const call = (method: string, path: string, body?: unknown) =>
  request(serve.url, { method, path, authorization: auth, ...(body !== undefined && { body }) });

test("neither the PIN nor the message text appear in clear in the database files or the log", {
  skip: SQLITE_ONLY,
}, async () => {
  const app = assertOk<{ applicationId: string }>(
    await call("POST", "/2fa/2/applications", { name: "secrets" }),
  );
  const template = assertOk<{ messageId: string }>(
    await call("POST", `/2fa/2/applications/${app.applicationId}/messages`, {
      messageText: "Dear {{who}}, {{pin}} is your code",
      pinType: "ALPHANUMERIC",
      pinLength: 16,
    }),
  );
  const marker = "Zanzibar-Quokka-7731";
  const sent = assertOk<{ pinId: string }>(
    await call("POST", "/2fa/2/pin", {
      applicationId: app.applicationId,
      messageId: template.messageId,
      to: "41793026727",
      placeholders: { who: marker },
    }),
  );
  const list = assertOk<{ pins: { pin: string; text: string }[] }>(await call("GET", "/local/1/pins"));
  const { pin, text } = list.pins[0] as { pin: string; text: string };
  assert.equal(text, `Dear ${marker}, ${pin} is your code`);
  assertOk(await call("POST", `/2fa/2/pin/${sent.pinId}/verify`, { pin }));
  assertOk(await call("POST", `/2fa/2/pin/${sent.pinId}/resend`, { placeholders: { who: marker } }));

  const exit = await serve.stop("SIGTERM");
  assert.equal(exit.code, 0);
  const files = (await readdir(dataDir)).filter((name) => name.startsWith("keydesk.db"));
  assert.ok(files.includes("keydesk.db"), files.join(", "));
  for (const name of files) {
    const bytes = await readFile(join(dataDir, name));
    for (const secret of [pin, marker, pin.toLowerCase()]) {
      assert.equal(bytes.includes(Buffer.from(secret)), false, `${secret} is readable in ${name}`);
    }
  }
  const log = serve.stderr();
  assert.match(log, /\/2fa\/2\/pin/, "the requests were logged");
  assert.equal(log.includes(pin), false, "the PIN was logged");
  assert.equal(log.includes(marker), false, "the message text was logged");
});
