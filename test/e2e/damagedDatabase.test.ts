import assert from "node:assert/strict";
import { join } from "node:path";
import { damageKeysTable } from "../harness/damageDatabase.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The embedded service's database damaged while the app runs: the Keys view says so in words,
 * the service's own 503 text naming the file and how to restore, not a bare "failed". Run after
 * `npm run -s build`.
 */

let dataDir: string;

const { test, session, page, host, bridge, before } = uiSuite({
  name: "damaged",
  host: (dataDir) => ({ env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dataDir, "no-such-bus")}` } }),
  context: { viewport: { width: 1280, height: 800 } },
  timeout: 15_000,
});

before(async () => {
  ({ dataDir } = session);
  for (const name of ["Billing backend", "Reports"]) await bridge("keys.create", { request: { name } });
});

test("a damaged database: the Keys view shows the service's words, naming the file and how to restore", async () => {
  const file = join(dataDir, "service", "keydesk.db");
  damageKeysTable(file);
  await page.goto(host.pageUrl);
  const alert = page.getByRole("alert").filter({ hasText: "The keys could not be loaded" });
  await alert.waitFor();
  const text = (await alert.textContent()) ?? "";
  assert.ok(text.includes(`the database ${file} is damaged`), text);
  assert.match(text, /restore/i);
  // The desktop's own way back, not only the command line's.
  assert.ok(text.includes("In Keydesk: Settings → Restore… brings the Local data back from a backup"), text);
  await page.screenshot({ path: join(RESULTS, "damaged-database-1280x800.png") });
});
