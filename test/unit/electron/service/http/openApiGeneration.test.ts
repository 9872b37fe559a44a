import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { z } from "zod";
import { routePath } from "../../../../../electron/service/http/methodRoutes.ts";
import { BASIC_CHALLENGE, errorResponse } from "../../../../../electron/service/http/openApiErrors.ts";
import { registerOpenApiGeneration } from "../../../../../electron/service/http/openApiGeneration.ts";
import {
  component,
  documented,
  jsonContent,
  OPTIONAL_BODY,
} from "../../../../../electron/service/http/routeSchemas.ts";

/**
 * The document is generated from what routes declare: zod schemas become parameters, bodies and
 * answers (components as $refs), what @fastify/swagger has no word for survives (a header's
 * `required`, an optional body), a route without a declaration is no operation, and Fastify
 * neither validates nor reshapes with the declared schemas (the service does, after sign-in).
 */

// biome-ignore lint/suspicious/noExplicitAny: the tests reach into arbitrary places of the document
type Json = Record<string, any>;

const widget = component(
  "TestWidget",
  z.strictObject({ id: z.string(), size: z.number().int().min(0).optional() }),
  { description: "A widget" },
);
const widgetRequest = component("TestWidgetRequest", z.strictObject({ size: z.number().default(1) }), {
  io: "input",
});

async function generated(register: (app: ReturnType<typeof Fastify>) => void) {
  const app = Fastify({ logger: false });
  registerOpenApiGeneration(app, {
    openapi: "3.1.0",
    info: { title: "test", version: "1" },
    servers: [{ url: "/" }],
    components: { securitySchemes: {}, schemas: {} },
    "x-root": { kept: true },
  });
  register(app);
  await app.ready();
  return { app, doc: app.swagger() as unknown as Json };
}

test("a declared route is an operation: params, query, header, body and answers from its zod schemas", async () => {
  const { app, doc } = await generated((app) =>
    routePath(app, "/widgets/:widgetId", {
      put: documented(
        {
          operationId: "putWidget",
          summary: "Put a widget",
          params: z.object({
            widgetId: z
              .string()
              .regex(/^w\d+$/)
              .meta({ description: "The widget" }),
          }),
          querystring: z.strictObject({ dry: z.string().optional().meta({ description: "Dry run" }) }),
          headers: z.object({ "Idempotency-Key": z.string().max(9).optional() }),
          body: widgetRequest,
          ...OPTIONAL_BODY,
          response: {
            200: { description: "The widget", content: jsonContent(widget) },
            401: errorResponse("401", "No credentials", BASIC_CHALLENGE),
          },
        },
        async (request) => ({ id: request.params.widgetId }),
      ),
    }),
  );
  try {
    const put = doc.paths["/widgets/{widgetId}"].put;
    assert.equal(put.operationId, "putWidget");
    const parameter = (name: string) => put.parameters.find((p: Json) => p.name === name);
    assert.deepEqual(parameter("widgetId"), {
      schema: { type: "string", pattern: "^w\\d+$" },
      in: "path",
      name: "widgetId",
      required: true,
      description: "The widget",
    });
    assert.equal(parameter("dry").in, "query");
    assert.equal(parameter("dry").required, false);
    assert.equal(parameter("Idempotency-Key").in, "header");
    assert.equal(parameter("Idempotency-Key").schema.maxLength, 9);
    assert.deepEqual(put.requestBody, {
      required: false,
      content: { "application/json": { schema: { $ref: "#/components/schemas/TestWidgetRequest" } } },
    });
    assert.equal(put["x-body-optional"], undefined);
    assert.deepEqual(put.responses["200"].content["application/json"].schema, {
      $ref: "#/components/schemas/TestWidget",
    });
    assert.deepEqual(put.responses["401"].headers["WWW-Authenticate"].required, true);
    assert.equal(put.responses["401"].headers["WWW-Authenticate"].schema["x-required"], undefined);
    // Answers as given, requests as accepted (a default makes a field optional to send).
    assert.deepEqual(doc.components.schemas.TestWidget.required, ["id"]);
    assert.equal(doc.components.schemas.TestWidget.additionalProperties, false);
    assert.equal(doc.components.schemas.TestWidget.description, "A widget");
    assert.equal(doc.components.schemas.TestWidgetRequest.required, undefined);
    assert.deepEqual(doc["x-root"], { kept: true });
    assert.equal(doc.openapi, "3.1.0");
  } finally {
    await app.close();
  }
});

test("a route that declares nothing, and the 405 answers of a path, are no operations", async () => {
  const { app, doc } = await generated((app) => {
    routePath(app, "/plain", { get: async () => ({}) });
    routePath(app, "/declared", {
      get: documented(
        { response: { 200: { description: "ok", content: jsonContent(widget) } } },
        async () => ({
          id: "w1",
        }),
      ),
    });
  });
  try {
    assert.deepEqual(Object.keys(doc.paths), ["/declared"]);
    assert.deepEqual(Object.keys(doc.paths["/declared"]), ["get"]);
  } finally {
    await app.close();
  }
});

test("the declared schemas neither refuse nor reshape a request or an answer: the service does that", async () => {
  const { app } = await generated((app) =>
    routePath(app, "/widgets/:widgetId", {
      post: documented(
        {
          params: z.object({ widgetId: z.string().regex(/^w\d+$/) }),
          body: widgetRequest,
          response: { 200: { description: "The widget", content: jsonContent(widget) } },
        },
        // An answer outside the declared schema goes out as it is.
        async (request) => ({ id: request.params.widgetId, body: request.body, extra: true }),
      ),
    }),
  );
  try {
    const res = await app.inject({
      method: "POST",
      url: "/widgets/not-a-widget",
      payload: { size: "big", unknown: 1 },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { id: "not-a-widget", body: { size: "big", unknown: 1 }, extra: true });
    // No body is no body (undefined, left out of the answer), not null.
    const none = await app.inject({ method: "POST", url: "/widgets/w1" });
    assert.equal(none.statusCode, 200);
    assert.deepEqual(none.json(), { id: "w1", extra: true });
  } finally {
    await app.close();
  }
});
