import type { SwaggerOptions } from "@fastify/swagger";
import { fastifySwagger } from "@fastify/swagger";
import type { FastifyInstance, FastifySchema } from "fastify";
import { z } from "zod";
import { componentIo, type DeclaredResponse, OPTIONAL_BODY, openApiComponents } from "./routeSchemas.ts";

/**
 * /openapi.json generated from the routes: each route's declared zod schemas (routeSchemas.ts)
 * become its operation, the schemas registered as components become `components.schemas`.
 * `root` is what no route declares: info, security schemes, the error bodies and the root `x-`
 * extensions (openApiRoot.ts). Must be registered before the routes.
 */

const COMPONENTS = "#/components/schemas/";

const ROUTE_SCHEMA = "__route__";

/** JSON Schema 2020-12 (OpenAPI 3.1's) of a zod schema; registered components as `$ref`s. */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): object {
  const registered = openApiComponents.get(schema);
  if (registered?.id) return { $ref: `${COMPONENTS}${registered.id}` };
  // zod answers a component with a $ref only inside the registry it converts, so the schema
  // joins the components for the time of its conversion.
  openApiComponents.add(schema, { ...registered, id: ROUTE_SCHEMA });
  try {
    const { [ROUTE_SCHEMA]: converted } = componentsAs(io);
    const { $schema: _schema, $id: _id, id: _ownId, ...rest } = converted as Record<string, unknown>;
    return rest;
  } finally {
    openApiComponents.remove(schema);
    if (registered) openApiComponents.add(schema, registered);
  }
}

/** Every component (and the schema converted with them) as JSON Schema. */
const componentsAs = (io: "input" | "output") =>
  z.toJSONSchema(openApiComponents, {
    io,
    unrepresentable: "any",
    reused: "inline",
    uri: (id) => `${COMPONENTS}${id}`,
  }).schemas;

/** A schema as declared on a route: zod, or a `$ref` to an error body (openApiErrors.ts). */
const toJson = (schema: unknown, io: "input" | "output") =>
  schema instanceof z.ZodType ? jsonSchemaOf(schema, io) : schema;

/**
 * @fastify/swagger reads a response header as a schema (the description lifted out) and drops
 * `required`: it travels as `x-required` and is put back where OpenAPI wants it (restoreOpenApiFields).
 */
function responseForSwagger({ description, headers, content }: DeclaredResponse) {
  return {
    description,
    // An answer without a body is one of type null to @fastify/swagger.
    ...(content === undefined && { type: "null" }),
    ...(headers && {
      headers: Object.fromEntries(
        Object.entries(headers).map(([name, header]) => [
          name,
          {
            ...header.schema,
            ...(header.description && { description: header.description }),
            ...(header.required && { "x-required": true }),
          },
        ]),
      ),
    }),
    ...(content !== undefined && {
      content: Object.fromEntries(
        Object.entries(content ?? {}).map(([type, { schema, "x-events": events, ...media }]) => [
          type,
          {
            ...media,
            ...(schema !== undefined && { schema: toJson(schema, "output") }),
            // A stream's events (x-events: event name → the schema of its data).
            ...(events !== undefined && {
              "x-events": Object.fromEntries(
                Object.entries(events as Record<string, unknown>).map(([name, data]) => [
                  name,
                  toJson(data, "output"),
                ]),
              ),
            }),
          },
        ]),
      ),
    }),
  };
}

function transform({ schema, url }: { schema: FastifySchema | undefined; url: string }) {
  // A route that declares nothing is no operation of the document (the 405 answers of a path).
  if (!schema) return { schema: { hide: true }, url };
  const { params, querystring, headers, body, response, ...rest } = schema as FastifySchema & {
    response?: Record<string, DeclaredResponse>;
  };
  return {
    url,
    schema: {
      ...rest,
      ...(params !== undefined && { params: toJson(params, "input") }),
      ...(querystring !== undefined && { querystring: toJson(querystring, "input") }),
      ...(headers !== undefined && { headers: toJson(headers, "input") }),
      ...(body !== undefined && { body: toJson(body, "input") }),
      ...(response && {
        response: Object.fromEntries(
          Object.entries(response).map(([status, answer]) => [status, responseForSwagger(answer)]),
        ),
      }),
    },
  };
}

type Json = Record<string, unknown>;

const [BODY_OPTIONAL] = Object.keys(OPTIONAL_BODY) as [string];

/** Puts back what @fastify/swagger has no word for: headers' `required` (responseForSwagger), optional bodies. */
function restoreOpenApiFields(paths: Json): void {
  for (const item of Object.values(paths) as Json[])
    for (const operation of Object.values(item) as Json[]) {
      if (operation[BODY_OPTIONAL]) {
        (operation.requestBody as Json).required = false;
        delete operation[BODY_OPTIONAL];
      }
      for (const response of Object.values((operation.responses ?? {}) as Json) as Json[])
        for (const header of Object.values((response.headers ?? {}) as Json) as Json[]) {
          const schema = header.schema as Json | undefined;
          if (schema?.["x-required"] === undefined) continue;
          header.required = schema["x-required"];
          delete schema["x-required"];
        }
    }
}

export interface OpenApiRoot {
  openapi: "3.1.0";
  info: object;
  servers: object[];
  components: { securitySchemes: object; schemas: Record<string, object> };
  [extension: `x-${string}`]: unknown;
}

/**
 * Registers the generator; `finish` may complete the generated document (e.g. answers every
 * operation shares). The plugin is set up at once rather than through `app.register`, which would
 * load it only when the app gets ready: its onRoute hook sees only the routes declared after it,
 * and the service declares its routes right away.
 */
export function registerOpenApiGeneration(
  app: FastifyInstance,
  root: OpenApiRoot,
  finish: (document: Json) => void = () => {},
): void {
  const options: SwaggerOptions = {
    openapi: root as never,
    // `const` stays `const` (JSON Schema 2020-12), in the error bodies too.
    convertConstToEnum: false,
    transform: transform as never,
    transformObject: (documentObject) => {
      const openapiObject = ("openapiObject" in documentObject ? documentObject.openapiObject : {}) as Json;
      // Request bodies as the service accepts them, answers as it gives them.
      const output = componentsAs("output");
      const input = componentsAs("input");
      const schemas = Object.fromEntries(
        Object.keys(output).map((id) => [id, componentIo.get(id) === "input" ? input[id] : output[id]]),
      );
      const components = openapiObject.components as Json;
      components.schemas = {
        ...(components.schemas as Json),
        ...Object.fromEntries(
          Object.entries(schemas).map(([id, schema]) => {
            const { $schema: _schema, $id: _id, id: _ownId, ...rest } = schema as Json;
            return [id, rest];
          }),
        ),
      };
      restoreOpenApiFields(openapiObject.paths as Json);
      finish(openapiObject);
      return openapiObject as never;
    },
  };
  fastifySwagger(app, options, (error) => {
    if (error) throw error;
  });
}
