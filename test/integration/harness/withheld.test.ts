import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { withheld } from "../../harness/withheld.ts";

/** KEYDESK_TEST_WITHOUT: CI's first job runs the tests as on a machine without Chromium and PostgreSQL. */

test("a part named in KEYDESK_TEST_WITHOUT is withheld, saying so; others are not", (t) => {
  const before = process.env.KEYDESK_TEST_WITHOUT;
  t.after(() => {
    if (before === undefined) delete process.env.KEYDESK_TEST_WITHOUT;
    else process.env.KEYDESK_TEST_WITHOUT = before;
  });
  process.env.KEYDESK_TEST_WITHOUT = "chromium,postgresql";
  assert.match(withheld("chromium") ?? "", /chromium withheld .*KEYDESK_TEST_WITHOUT/);
  assert.match(withheld("postgresql") ?? "", /postgresql withheld/);
  process.env.KEYDESK_TEST_WITHOUT = "chromium";
  assert.equal(withheld("postgresql"), undefined);
  delete process.env.KEYDESK_TEST_WITHOUT;
  assert.equal(withheld("chromium"), undefined);
});

test("with both withheld, the browser and database tests' checks say they are missing, as on a machine without them", () => {
  const script = `
    const { chromiumMissing } = await import("./test/harness/chromium.ts");
    const { postgresMissing } = await import("./test/harness/postgres.ts");
    console.log(JSON.stringify({ chromiumMissing, postgresMissing }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, KEYDESK_TEST_WITHOUT: "chromium postgresql" },
  });
  const { chromiumMissing, postgresMissing } = JSON.parse(out);
  assert.match(chromiumMissing, /chromium withheld/);
  assert.match(postgresMissing, /postgresql withheld/);
});
