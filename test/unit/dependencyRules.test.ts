import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/**
 * The rules of .dependency-cruiser.cjs (run by `npm run lint`) fail on a violation: files that
 * break each rule are added to the tree where the rule looks, the cruise runs on them with the
 * project's config, and it must exit non-zero naming each rule and each broken import. A file that
 * imports what it may (the renderer importing shared/) is cruised with them and must not be named.
 * The probes are removed afterwards, whatever happened.
 */

/** Letters only (the SQLite store's module names have no digits): this process's id spelled in letters. */
const PROBE = `dependencyRulesProbe${[...String(process.pid)].map((digit) => "abcdefghij"[Number(digit)]).join("")}`;

/** A probe's number in letters (two: more probes than the alphabet has letters). */
const letters = (index: number) => {
  const alphabet = "abcdefghijklmnopqrstuvwxyz";
  return `${alphabet[Math.floor(index / alphabet.length)]}${alphabet[index % alphabet.length]}`;
};

/** A probe: where it is added, what it imports (typeOnly: its type), the rule that must name it, a name ending. */
interface Probe {
  at: string;
  imports: string;
  rule?: string;
  name?: string;
  typeOnly?: string;
}

const VIOLATIONS: Probe[] = [
  { at: "renderer/src", imports: "../../electron/service/errors.ts", rule: "renderer-not-electron" },
  { at: "shared", imports: "../electron/service/errors.ts", rule: "shared-not-electron-or-renderer" },
  { at: "shared/x", imports: "../../renderer/src/App.tsx", rule: "shared-not-electron-or-renderer" },
  { at: "electron/service", imports: "../main/core.ts", rule: "service-not-main" },
  { at: "electron/service/store", imports: "../http/errorReplies.ts", rule: "store-not-http" },
  { at: "electron/service/store", imports: "../tfa/limits.ts", rule: "store-not-tfa" },
  { at: "electron/service/store/postgres", imports: "../../tfa/limits.ts", rule: "store-not-tfa" },
  {
    at: "electron/service/store",
    imports: "../domain/failureBuckets.ts",
    rule: "store-not-sign-in-rules",
  },
  { at: "electron/service/store/postgres", imports: "../apiKeyStore.ts", rule: "postgres-not-sqlite" },
  { at: "electron/service/store/postgres/x", imports: "../../database.ts", rule: "postgres-not-sqlite" },
  { at: "electron/service/store/postgres/y", imports: "better-sqlite3", rule: "postgres-not-sqlite" },
  // Through a module that is not SQLite's itself (the probe below, importing the driver).
  {
    at: "electron/service/store/postgres/z",
    imports: "../../../domain/<domain probe>",
    rule: "postgres-not-sqlite",
  },
  // The rows stay in the store: the service, electron/sync and tests outside the store's own read
  // the domain's types (a type-only import too).
  { at: "electron/service/tfa", imports: "../store/tfaPinRows.ts", rule: "rows-only-in-store" },
  {
    at: "electron/sync",
    imports: "../service/store/syncRows.ts",
    rule: "rows-only-in-store",
    typeOnly: "LinkRow",
  },
  {
    at: "test/unit/electron/sync",
    imports: "../../../../electron/service/store/accountRows.ts",
    rule: "rows-only-in-store",
  },
  {
    at: "electron/service/domain",
    imports: "better-sqlite3",
    rule: "sqlite-driver-only-where-sqlite-is-opened",
  },
  // The tools that handle the database as a file go through the store's sqliteFile.ts.
  {
    at: "electron/service/backup",
    imports: "better-sqlite3",
    rule: "sqlite-driver-only-where-sqlite-is-opened",
  },
  { at: "electron/cli", imports: "better-sqlite3", rule: "sqlite-driver-only-where-sqlite-is-opened" },
  // The desktop app's main process knows no table of the service's.
  { at: "electron/main/core", imports: "better-sqlite3", rule: "sqlite-driver-only-where-sqlite-is-opened" },
  // The CLI connects through postgresService.ts; the SQLite store and the service know no PostgreSQL driver.
  { at: "electron/cli", imports: "pg", rule: "pg-only-in-postgres-store" },
  { at: "electron/service/store", imports: "pg", rule: "pg-only-in-postgres-store" },
  // A module that imports a module that imports it back for a type only (HELPERS): the cycle is
  // named once, from the first of its modules.
  { at: "electron/service/metrics", imports: "./<cycle partner>", rule: "no-circular" },
];
const ALLOWED: Probe[] = [
  { at: "renderer/src/ok", imports: "../../../shared/apiKeys.ts" },
  // A module of the SQLite store (named <name>Store.ts) opens the driver; PostgreSQL's store reads
  // the rows both share.
  { at: "electron/service/store", imports: "better-sqlite3", name: "Store" },
  { at: "electron/service/store/postgres/ok", imports: "../../apiKeyRows.ts" },
  // The store's own tests read its rows' constants and codecs.
  {
    at: "test/unit/electron/service/store",
    imports: "../../../../../electron/service/store/idempotencyRows.ts",
  },
  // What handles the database as a file opens it through the store.
  { at: "electron/main/core", imports: "../../service/store/sqliteFile.ts" },
  { at: "electron/service/store/postgres/ok", imports: "pg" },
  // The store may name the sign-in bucket's type, not call its rules.
  { at: "electron/service/store", imports: "../domain/failureBuckets.ts", typeOnly: "FailureBucket" },
];

/** Probes that only complete another's violation: cruised, and neither asserted named nor not. */
const HELPERS: Probe[] = [
  { at: "electron/service/metrics", imports: "./<cycle partner>", typeOnly: "Probe", name: "Partner" },
];

test("each dependency rule fails the cruise on a file that breaks it, and passes what is allowed", (t) => {
  const probes = [...VIOLATIONS, ...ALLOWED, ...HELPERS].map((probe, index) => ({
    ...probe,
    file: `${probe.at}/${PROBE}${letters(index)}${probe.name ?? ""}.ts`,
  }));
  const madeDirs = new Set<string>();
  t.after(() => {
    for (const probe of probes) rmSync(join(REPO_ROOT, probe.file), { force: true });
    for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const probe of probes) {
    const dir = join(REPO_ROOT, dirname(probe.file));
    // A directory of its own for probes that need one (x, y, ok), removed with them.
    if (/\/(x|y|z|ok)$/.test(dir)) madeDirs.add(dir);
    mkdirSync(dir, { recursive: true });
    const domainProbe = probes.find((other) => other.at === "electron/service/domain")?.file ?? "";
    const partner =
      probes.find((other) => other.imports.includes("<cycle partner>") && other !== probe)?.file ?? "";
    const imports = probe.imports
      .replace("<domain probe>", basename(domainProbe))
      .replace("<cycle partner>", basename(partner));
    const source = probe.typeOnly
      ? `import type { ${probe.typeOnly} } from "${imports}";\nexport type Probe = ${probe.typeOnly};\n`
      : `import "${imports}";\n`;
    writeFileSync(join(REPO_ROOT, probe.file), source);
  }

  const cruise = spawnSync(
    process.execPath,
    [
      join(REPO_ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs"),
      "--config",
      ".dependency-cruiser.cjs",
      "--output-type",
      "err",
      ...probes.map((probe) => probe.file),
    ],
    { cwd: REPO_ROOT, encoding: "utf8" },
  );
  const report = `${cruise.stdout}${cruise.stderr}`;
  assert.notEqual(cruise.status, 0, `the cruise passed:\n${report}`);
  for (const probe of probes.slice(0, VIOLATIONS.length))
    assert.match(
      report,
      new RegExp(`error ${probe.rule ?? ""}: ${probe.file.replaceAll(".", "[.]")} → `),
      `${probe.file} (imports ${probe.imports}) is not named by ${probe.rule}:\n${report}`,
    );
  for (const probe of probes.slice(VIOLATIONS.length, VIOLATIONS.length + ALLOWED.length))
    assert.doesNotMatch(report, new RegExp(probe.file.replaceAll(".", "[.]")), `${probe.file} was refused`);
});

test("every dependency rule is named in docs/development.md, and the page names no rule that is gone", () => {
  const config = readFileSync(join(REPO_ROOT, ".dependency-cruiser.cjs"), "utf8");
  const rules = [...config.matchAll(/name: "([a-z-]+)"/g)].map((match) => match[1]);
  const page = readFileSync(join(REPO_ROOT, "docs/development.md"), "utf8");
  const section = page.slice(page.indexOf("### Boundaries kept by tools"));
  const named = [...section.matchAll(/`([a-z]+(?:-[a-z]+)+)`/g)].map((match) => match[1]);
  assert.ok(rules.length >= 8, `rules read from the config: ${rules}`);
  assert.deepEqual(
    rules.filter((rule) => !named.includes(rule)),
    [],
    "rules the page does not name",
  );
  assert.deepEqual(
    named.filter((name) => !rules.includes(name)),
    [],
    "names on the page that are no rule",
  );
});
