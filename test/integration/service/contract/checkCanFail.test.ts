import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ApiResponse } from "../../../harness/keyServiceProcess.ts";
import {
  type Exchange,
  type OpenApiDocument,
  openApiConformance,
} from "../../../harness/openApiConformance.ts";
import { type Service, startService } from "../serviceFixture.ts";

/**
 * The conformance check can fail: real answers of the service, checked against copies of its
 * document with one thing taken away or changed, are refused with a message naming what differs.
 * (Against the real document they pass, as every other test shows.)
 */

// biome-ignore lint/suspicious/noExplicitAny: the tests reach into arbitrary places of the document to change them
type Json = Record<string, any>;

let service: Service;
let doc: OpenApiDocument;
const KEYS = "/settings/1/accounts/_/api-keys";
const KEYS_TEMPLATE = "/settings/1/accounts/{accountKey}/api-keys";

before(async () => {
  service = await startService([{ username: "owner", password: "owner-secret-1" }]);
  doc = (await service.call({ path: "/openapi.json" })).json as OpenApiDocument;
});
after(async () => {
  await service?.close();
});

/** Asserts that `res` conforms to the document and fails against the document `change` makes. */
async function failsAfter(
  change: (doc: Json) => void,
  method: string,
  path: string,
  res: ApiResponse,
  problem: RegExp,
): Promise<void> {
  const exchange: Exchange = { method, path, ...res };
  openApiConformance(doc).assertConforms(exchange);
  const changed = structuredClone(doc) as Json;
  change(changed);
  assert.throws(() => openApiConformance(changed as OpenApiDocument).assertConforms(exchange), problem);
}

const auth = () => service.auth("owner");
const schemas = (changed: Json) => changed.components.schemas;
const getKey = (changed: Json) => changed.paths[`${KEYS_TEMPLATE}/{key}`].get;

test("a field the schema does not list (a closed schema) fails", async () => {
  const created = await service.call({
    method: "POST",
    path: KEYS,
    authorization: auth(),
    body: { name: "k" },
  });
  await failsAfter(
    (changed) => delete schemas(changed).ApiKey.properties.enabled,
    "POST",
    KEYS,
    created,
    /"additionalProperty":"enabled".*must NOT have additional properties/,
  );
});

test("a field of the wrong type or shape fails", async () => {
  const listed = await service.call({ path: KEYS, authorization: auth() });
  await failsAfter(
    (changed) => {
      schemas(changed).ApiKey.properties.enabled = { type: "string" };
    },
    "GET",
    KEYS,
    listed,
    /must be string/,
  );
});

test("an error body with a field the error schema does not list fails", async () => {
  const invalid = await service.call({
    method: "POST",
    path: KEYS,
    authorization: auth(),
    body: { name: "" },
  });
  await failsAfter(
    (changed) =>
      delete schemas(changed).ApiError.properties.requestError.properties.serviceException.properties
        .validationErrors,
    "POST",
    KEYS,
    invalid,
    /additionalProperty":"validationErrors"/,
  );
});

test("a status the operation does not document fails", async () => {
  const missing = await service.call({
    path: `${KEYS}/0123456789ABCDEF0123456789ABCDEF`,
    authorization: auth(),
  });
  await failsAfter(
    (changed) => delete getKey(changed).responses["404"],
    "GET",
    `${KEYS}/0123456789ABCDEF0123456789ABCDEF`,
    missing,
    /status 404 is not documented/,
  );
});

test("a Content-Type the response does not document fails", async () => {
  const key = (await service.createKey("owner", { name: "typed" })).key;
  const res = await service.call({ path: `${KEYS}/${key}`, authorization: auth() });
  await failsAfter(
    (changed) => {
      const ok = getKey(changed).responses["200"];
      ok.content = { "application/xml": ok.content["application/json"] };
    },
    "GET",
    `${KEYS}/${key}`,
    res,
    /Content-Type application\/json is not documented/,
  );
});

test("a body where the document says there is none fails", async () => {
  const res = await service.call({ path: KEYS, authorization: auth() });
  await failsAfter(
    (changed) => delete changed.paths[KEYS_TEMPLATE].get.responses["200"].content,
    "GET",
    KEYS,
    res,
    /no body is documented/,
  );
});

test("a missing documented header fails", async () => {
  const res = await service.call({ path: KEYS });
  await failsAfter(
    (changed) => {
      changed.paths[KEYS_TEMPLATE].get.responses["401"].headers["X-Not-Sent"] = {
        required: true,
        schema: { type: "string" },
      };
    },
    "GET",
    KEYS,
    res,
    /header X-Not-Sent is missing/,
  );
});

test("a 405 or an unknown route without the root extensions fails", async () => {
  const notAllowed = await service.call({ method: "PATCH", path: KEYS, authorization: auth() });
  await failsAfter(
    (changed) => delete changed["x-method-not-allowed"],
    "PATCH",
    KEYS,
    notAllowed,
    /the document has no x-method-not-allowed/,
  );
  const unknown = await service.call({ path: "/no/such/route", authorization: auth() });
  await failsAfter(
    (changed) => delete changed["x-unknown-path"].responses["404"],
    "GET",
    "/no/such/route",
    unknown,
    /x-unknown-path does not document status 404/,
  );
});
