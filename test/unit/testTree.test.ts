import assert from "node:assert/strict";
import { existsSync, globSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/**
 * The unit tests mirror the code tree (docs/development.md, Layout): `test/unit/X.test.ts` or
 * `test/unit/X.<aspect>.test.ts` tests `X.ts` (or `.tsx`), and those under `test/unit/renderer/`
 * test `renderer/src/`. The few at the top test a project file rather than a module: listed here.
 */
const PROJECT_FILE_TESTS: Record<string, string> = {
  dependencyRules: ".dependency-cruiser.cjs",
  electronBuilderConfig: "electron-builder.yml",
  knip: "knip.config.ts",
  packageLock: "package-lock.json",
  readme: "README.md",
  testTree: "test",
};

/** The module (or project file) a unit test file tests, or undefined when it names none. */
function testedBy(testFile: string): string | undefined {
  const relative = testFile.replace(/^test\/unit\//, "").replace(/^renderer\//, "renderer/src/");
  const slash = relative.lastIndexOf("/");
  const dir = relative.slice(0, slash + 1);
  const stem = (relative.slice(slash + 1).split(".test.")[0] as string).split(".")[0] as string;
  if (dir === "") return PROJECT_FILE_TESTS[stem];
  return [".ts", ".tsx"]
    .map((extension) => `${dir}${stem}${extension}`)
    .find((file) => existsSync(join(REPO_ROOT, file)));
}

test("every unit test file sits at the mirrored path of the module it tests", () => {
  const files = globSync("test/unit/**/*.test.{ts,tsx}", { cwd: REPO_ROOT });
  assert.ok(files.length > 100, `unit test files found: ${files.length}`);
  assert.deepEqual(
    files.filter((file) => testedBy(file) === undefined),
    [],
    "unit tests whose path names no module",
  );
  for (const file of Object.values(PROJECT_FILE_TESTS)) assert.ok(existsSync(join(REPO_ROOT, file)), file);
});

test("a test file away from its module is named", () => {
  assert.equal(testedBy("test/unit/electron/service/store/stores.test.ts"), undefined);
  assert.equal(testedBy("test/unit/electron/builderConfig.test.ts"), undefined);
  assert.equal(
    testedBy("test/unit/electron/service/store/database.test.ts"),
    "electron/service/store/database.ts",
  );
  assert.equal(testedBy("test/unit/renderer/time.test.ts"), "renderer/src/time.ts");
});
