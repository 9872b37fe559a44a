import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, REPO_ROOT, removeDir } from "../../harness/keyServiceProcess.ts";

// Electronegativity (@doyensec/electronegativity) over electron/: no HIGH-severity finding.
// Its runner fetches translations and Electron release data from the internet at start; this
// machine has no such access, so the test drives its loader, parser and checks directly (what the
// runner does), with the one network-bound check (AvailableSecurityFixesGlobalCheck) left out.

const require = createRequire(import.meta.url);
const dist = join(require.resolve("@doyensec/electronegativity/package.json"), "..", "dist");

interface Finding {
  id: string;
  file: string;
  location: { line: number; column: number };
  description: string;
  severity: { name: string };
  confidence: { name: string };
  manualReview: boolean;
  visibility?: { inlineDisabled: boolean; globalCheckDisabled: boolean };
}

const NETWORK_BOUND_CHECKS = ["availablesecurityfixesglobalcheck"];
const ELECTRON_VERSION = (require("electron/package.json") as { version: string }).version;

async function scan(dir: string): Promise<{ findings: Finding[]; errors: string[] }> {
  const i18n = createRequire(join(dist, "index.js"))("i18n") as { configure(options: object): void };
  i18n.configure({
    locales: ["en-US"],
    defaultLocale: "en-US",
    directory: join(dist, "locales"),
    updateFiles: false,
    objectNotation: true,
    register: globalThis,
  });
  const { LoaderDirectory } = require(join(dist, "loader"));
  const { Parser } = require(join(dist, "parser"));
  const { Finder, GlobalChecks } = require(join(dist, "finder"));
  const loader = new LoaderDirectory();
  await loader.load(dir);
  const parser = new Parser(false, true);
  const globalChecks = new GlobalChecks([], NETWORK_BOUND_CHECKS, undefined);
  const finder = await new Finder([], [], undefined);
  let findings: Finding[] = [];
  const errors: string[] = [];
  for (const file of loader.list_files as Iterable<string>) {
    try {
      const [type, data, content] = parser.parse(file, loader.load_buffer(file));
      if (data === null) continue;
      findings.push(...(await finder.find(file, data, type, content, null, ELECTRON_VERSION)));
    } catch (error) {
      errors.push(`${file}: ${(error as Error).message}`);
    }
  }
  findings = await globalChecks.getResults(findings);
  findings = findings.filter(
    (finding) =>
      !finding.visibility || (!finding.visibility.inlineDisabled && !finding.visibility.globalCheckDisabled),
  );
  return { findings, errors };
}

const describeFinding = (f: Finding) =>
  `${f.id} ${f.severity.name}/${f.confidence.name} ${f.file.replace(`${REPO_ROOT}/`, "")}:${f.location.line} ${f.description}`;

describe("Electronegativity", () => {
  let scratch: string | undefined;
  after(async () => {
    if (scratch) await removeDir(scratch);
  });

  it("finds no HIGH-severity issue in electron/", async () => {
    const { findings, errors } = await scan(join(REPO_ROOT, "electron"));
    assert.deepEqual(errors, [], "every file of electron/ parses");
    const high = findings.filter((finding) => finding.severity.name === "HIGH");
    assert.deepEqual(
      high.map(describeFinding),
      [],
      `HIGH findings:\n${high.map(describeFinding).join("\n")}`,
    );
  });

  it("does find a HIGH-severity issue in a window without context isolation (the scan works)", async () => {
    scratch = await makeTempDir("keydesk-eneg-");
    await mkdir(join(scratch, "main"));
    await writeFile(
      join(scratch, "main", "window.ts"),
      `import { BrowserWindow } from "electron";\n` +
        `export const win = new BrowserWindow({ webPreferences: { contextIsolation: false, nodeIntegration: true } });\n`,
    );
    const { findings } = await scan(scratch);
    const ids = findings.filter((finding) => finding.severity.name === "HIGH").map((finding) => finding.id);
    assert.ok(
      ids.includes("CONTEXT_ISOLATION_JS_CHECK"),
      `found: ${findings.map(describeFinding).join("\n")}`,
    );
  });
});
