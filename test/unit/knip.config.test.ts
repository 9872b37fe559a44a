import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/**
 * knip.config.ts (run by `npm run lint`) fails on dead code: probes are added to the tree, a module
 * with an export nobody imports, a file nobody imports and an import of a package package.json does
 * not list, each reached the way real code is (the benchmarks are entries); knip runs with the
 * project's config and must exit non-zero naming each of them, and not the export that is used.
 * The probes are removed afterwards, whatever happened.
 */

/** Letters only: this process's id spelled in letters, so that concurrent runs do not collide. */
const PROBE = `knipProbe${[...String(process.pid)].map((digit) => "abcdefghij"[Number(digit)]).join("")}`;
const MODULE = `electron/service/domain/${PROBE}Module.ts`;
const ORPHAN = `electron/service/domain/${PROBE}Orphan.ts`;
const ENTRY = `bench/${PROBE}.bench.ts`;
const UNLISTED = `${PROBE.toLowerCase()}-package`;

test("npm run lint runs knip", () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  assert.match(pkg.scripts.lint ?? "", /(^|&& )knip( |$)/);
});

test("knip fails on an unused export, an unused file and an unlisted dependency, and passes what is used", (t) => {
  const probes = {
    [MODULE]: `export const keptProbeValue = 1;\nexport const unusedProbeValue = 2;\nexport type UnusedProbeType = number;\n`,
    [ORPHAN]: "export const orphanProbeValue = 1;\n",
    [ENTRY]: `import "${UNLISTED}";\nimport { keptProbeValue } from "../${MODULE}";\n\nexport const probe = keptProbeValue;\n`,
  };
  t.after(() => {
    for (const file of Object.keys(probes)) rmSync(join(REPO_ROOT, file), { force: true });
  });
  for (const [file, text] of Object.entries(probes)) writeFileSync(join(REPO_ROOT, file), text);

  const knip = spawnSync(
    process.execPath,
    [join(REPO_ROOT, "node_modules/knip/bin/knip.js"), "--no-progress"],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
    },
  );
  const report = `${knip.stdout}${knip.stderr}`;
  assert.notEqual(knip.status, 0, `knip passed:\n${report}`);
  const line = (name: string, where: string) =>
    new RegExp(`^${name.replaceAll(".", "[.]")}\\s.*${where.replaceAll(".", "[.]")}`, "m");
  assert.match(report, /^Unused files/m);
  assert.match(report, new RegExp(`^${ORPHAN.replaceAll(".", "[.]")}\\s*$`, "m"), report);
  assert.match(report, line("unusedProbeValue", MODULE), report);
  assert.match(report, line("UnusedProbeType", MODULE), report);
  assert.match(report, line(UNLISTED, ENTRY), report);
  assert.doesNotMatch(report, /keptProbeValue/, "the used export is not reported");
});
