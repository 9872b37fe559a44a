import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { z } from "zod";
import { ApiError } from "../../../../../electron/service/errors.ts";
import { routePath } from "../../../../../electron/service/http/methodRoutes.ts";
import { errorResponse } from "../../../../../electron/service/http/openApiErrors.ts";
import { registerOpenApiGeneration } from "../../../../../electron/service/http/openApiGeneration.ts";
import {
  component,
  componentRef,
  documented,
  jsonContent,
  OPTIONAL_BODY,
} from "../../../../../electron/service/http/routeSchemas.ts";
import { BASIC_CHALLENGE } from "../../../../../electron/service/http/routes/commonErrors.ts";

/**
 * The document is generated from what routes declare: zod schemas become parameters, bodies and
 * answers (components as $refs), what @fastify/swagger has no word for survives (a header's
 * `required`, an optional body), a route without a declaration is no operation, and the declared
 * schemas are the request's validation (requestValidation.ts), after what the route's `before`
 * answers; answers go out unchecked.
 */

// biome-ignore lint/suspicious/noExplicitAny: the tests reach into arbitrary places of the document
type Json = Record<string, any>;

const widget = component(
  "TestWidget",
  z.strictObject({ id: z.string(), size: z.number().int().min(0).optional() }),
  { description: "A widget" },
);
const widgetRequest = component("TestWidgetRequest", z.strictObject({ size: z.number().default(1) }));

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
      content: { "application/json": { schema: { $ref: "#/components/schemas/TestWidgetRequestInput" } } },
    });
    assert.equal(put["x-body-optional"], undefined);
    assert.deepEqual(put.responses["200"].content["application/json"].schema, {
      $ref: "#/components/schemas/TestWidget",
    });
    assert.deepEqual(put.responses["401"].headers["WWW-Authenticate"].required, true);
    assert.equal(put.responses["401"].headers["WWW-Authenticate"].schema["x-required"], undefined);
    // Answers as given, requests as accepted (a default makes a field optional to send): each
    // component in both forms, a request's body naming the `Input` one.
    assert.deepEqual(doc.components.schemas.TestWidget.required, ["id"]);
    assert.equal(doc.components.schemas.TestWidget.additionalProperties, false);
    assert.equal(doc.components.schemas.TestWidget.description, "A widget");
    assert.equal(doc.components.schemas.TestWidgetRequestInput.required, undefined);
    assert.deepEqual(doc.components.schemas.TestWidgetRequest.required, ["size"]);
    assert.deepEqual(doc["x-root"], { kept: true });
    assert.equal(doc.openapi, "3.1.0");
  } finally {
    await app.close();
  }
});

test("what the zod transform does not convert survives: an answer without a body, a stream's x-events, a media's other fields", async () => {
  const { app, doc } = await generated((app) =>
    routePath(app, "/stream", {
      get: documented(
        {
          response: {
            200: {
              description: "Events",
              content: {
                "text/event-stream": { schema: z.string(), "x-events": { widget: componentRef(widget) } },
              },
            },
            204: { description: "Nothing" },
          },
        },
        async () => "",
      ),
    }),
  );
  try {
    const get = doc.paths["/stream"].get;
    assert.deepEqual(get.responses["200"].content["text/event-stream"], {
      schema: { type: "string" },
      "x-events": { widget: { $ref: "#/components/schemas/TestWidget" } },
    });
    assert.deepEqual(get.responses["204"], { description: "Nothing" });
    assert.throws(() => componentRef(z.string()), /not a component/);
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

test("the declared schemas validate the request and the handler gets what they parsed; answers go out unchecked", async () => {
  const { app } = await generated((app) =>
    routePath(app, "/widgets/:widgetId", {
      post: documented(
        {
          params: z.object({ widgetId: z.string().regex(/^w\d+$/) }),
          querystring: z.strictObject({ limit: z.string().transform(Number).optional() }),
          body: widgetRequest,
          response: { 200: { description: "The widget", content: jsonContent(widget) } },
        },
        // An answer outside the declared schema goes out as it is.
        async (request) => ({
          id: request.params.widgetId,
          body: request.body,
          query: request.query,
          extra: true,
        }),
      ),
    }),
  );
  try {
    const ok = await app.inject({ method: "POST", url: "/widgets/w1?limit=3", payload: {} });
    assert.equal(ok.statusCode, 200);
    // The body's default and the query's transform are applied: the handler gets parsed values.
    assert.deepEqual(ok.json(), { id: "w1", body: { size: 1 }, query: { limit: 3 }, extra: true });

    const badBody = await app.inject({
      method: "POST",
      url: "/widgets/w1",
      payload: { size: "big", unknown: 1 },
    });
    assert.equal(badBody.statusCode, 400);
    const bodyError = badBody.json().requestError.serviceException;
    assert.equal(bodyError.messageId, "BAD_REQUEST");
    assert.equal(bodyError.text, "the request has invalid fields; see validationErrors");
    assert.deepEqual(Object.keys(bodyError.validationErrors).sort(), ["size", "unknown"]);
    assert.deepEqual(bodyError.validationErrors.unknown, ["is not a known field"]);

    const badQuery = await app.inject({ method: "POST", url: "/widgets/w1?colour=red", payload: {} });
    assert.equal(badQuery.statusCode, 400);
    assert.deepEqual(badQuery.json().requestError.serviceException, {
      messageId: "BAD_REQUEST",
      text: "the query has invalid parameters; see validationErrors",
      validationErrors: { colour: ["is not a known field"] },
    });

    // A path its schema refuses names no route (a route's `before` answers what its path names).
    const badPath = await app.inject({ method: "POST", url: "/widgets/not-a-widget", payload: {} });
    assert.equal(badPath.statusCode, 404);
    assert.equal(badPath.json().requestError.serviceException.messageId, "NOT_FOUND");
  } finally {
    await app.close();
  }
});

test("a route's before runs ahead of validation: what it refuses with is answered whatever the body", async () => {
  const { app } = await generated((app) =>
    routePath(app, "/guarded", {
      post: documented(
        { body: z.strictObject({ name: z.string() }) },
        {
          before: (request) => {
            if (request.headers.authorization !== "yes") throw new ApiError("UNAUTHORIZED", "sign in");
            return { who: "caller" };
          },
          handler: (request, _reply, resolved) => ({ name: request.body.name, ...resolved }),
        },
      ),
    }),
  );
  try {
    const refused = await app.inject({ method: "POST", url: "/guarded", payload: { wrong: true } });
    assert.equal(refused.statusCode, 401);
    const invalid = await app.inject({
      method: "POST",
      url: "/guarded",
      headers: { authorization: "yes" },
      payload: { wrong: true },
    });
    assert.equal(invalid.statusCode, 400);
    const ok = await app.inject({
      method: "POST",
      url: "/guarded",
      headers: { authorization: "yes" },
      payload: { name: "n" },
    });
    assert.deepEqual(ok.json(), { name: "n", who: "caller" });
  } finally {
    await app.close();
  }
});
