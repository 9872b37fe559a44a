import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FastifySchema, FastifySchemaCompiler, RouteOptions } from "fastify";
import { type DataDir, openDataDir } from "../../../../electron/service/dataDir.ts";
import { ApiError } from "../../../../electron/service/errors.ts";
import { buildHttpApp } from "../../../../electron/service/http/app.ts";
import { attachSync } from "../../../../electron/sync/attachSync.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";

/**
 * Every route that declares params, a query or a body has them validated by what it declares: a
 * real validator built from the declared schema, answering in the service's error shape. None
 * lets a request through unchecked (the declared contract and the validation cannot drift).
 */

const PARTS = [
  ["params", "params"],
  ["querystring", "querystring"],
  ["body", "body"],
] as const;

let dataDir: string;
let data: DataDir;
const routes: RouteOptions[] = [];

before(async () => {
  dataDir = await makeTempDir("keydesk-route-validation-");
  data = openDataDir({ dataDir });
  const { app } = buildHttpApp(data, {
    logLevel: "silent",
    onRoute: (route) => void routes.push(route),
    // As serve and the desktop run it: the sync routes too.
    extensions: [(service) => void attachSync(service)],
  });
  await app.ready();
  await app.close();
});
after(async () => {
  data?.close();
  await removeDir(dataDir);
});

test("every declared params, query and body is validated by its schema, refusals in the service's shape", () => {
  const checked: string[] = [];
  for (const route of routes) {
    const schema = route.schema as (FastifySchema & Record<string, unknown>) | undefined;
    if (!schema) continue;
    const name = `${String(route.method)} ${route.url}`;
    const declared = PARTS.filter(([key]) => schema[key] !== undefined);
    if (declared.length === 0) continue;
    const compile = route.validatorCompiler as FastifySchemaCompiler<unknown> | undefined;
    assert.equal(typeof compile, "function", `${name} has no validator`);
    assert.equal(route.attachValidation, true, `${name} does not answer its own validation failures`);
    for (const [key, httpPart] of declared) {
      const validate = (compile as FastifySchemaCompiler<unknown>)({
        schema: schema[key],
        httpPart,
        method: String(route.method),
        url: route.url,
      });
      // A number is no object: every declared part refuses it, a pass-through would not.
      const result = validate(42) as { error?: unknown };
      assert.ok(result.error instanceof ApiError, `${name}: its ${httpPart} let 42 through`);
      assert.equal(result.error.status, httpPart === "params" ? 404 : 400, `${name} ${httpPart}`);
      checked.push(`${name} ${httpPart}`);
    }
  }
  // The key, 2FA, inbox, audit and sync routes: far more than a handful.
  assert.ok(checked.length >= 40, `only ${checked.length} declared parts: ${checked.join(", ")}`);
  for (const part of [
    "POST /settings/1/accounts/:accountKey/api-keys body",
    "GET /settings/1/accounts/:accountKey/api-keys querystring",
    "PUT /2fa/2/applications/:appId body",
    "POST /2fa/2/pin/:pinId/verify body",
    "GET /local/1/pins/stream querystring",
    "GET /local/1/audit querystring",
    "POST /local/1/sync/links body",
  ]) {
    assert.ok(checked.includes(part), `${part} is not among the validated parts`);
  }
});
