import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/** The packaging configuration (electron-builder.yml) as electron-builder reads it. */

const config = parse(readFileSync(join(REPO_ROOT, "electron-builder.yml"), "utf8")) as {
  electronFuses?: Record<string, boolean>;
};

test("electron-builder accepts the configuration (its own JSON schema)", () => {
  const require = createRequire(join(REPO_ROOT, "node_modules", "electron-builder", "package.json"));
  const schema = JSON.parse(readFileSync(require.resolve("app-builder-lib/scheme.json"), "utf8")) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);
  assert.ok(validate(config), JSON.stringify(validate.errors));
});

test("the packaged app's fuses: no Node mode, no NODE_OPTIONS or inspector, encrypted cookies, code only from its checked asar", () => {
  assert.deepEqual(
    {
      runAsNode: config.electronFuses?.runAsNode,
      enableNodeOptionsEnvironmentVariable: config.electronFuses?.enableNodeOptionsEnvironmentVariable,
      enableNodeCliInspectArguments: config.electronFuses?.enableNodeCliInspectArguments,
      enableCookieEncryption: config.electronFuses?.enableCookieEncryption,
      enableEmbeddedAsarIntegrityValidation: config.electronFuses?.enableEmbeddedAsarIntegrityValidation,
      onlyLoadAppFromAsar: config.electronFuses?.onlyLoadAppFromAsar,
    },
    {
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    },
  );
});
