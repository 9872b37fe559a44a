import type { SwaggerOptions } from "@fastify/swagger";
import { fastifySwagger } from "@fastify/swagger";
import type { FastifyInstance, FastifySchema } from "fastify";
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import { type DeclaredResponse, OPTIONAL_BODY, openApiComponents } from "./routeSchemas.ts";

/**
 * /openapi.json generated from the routes: fastify-type-provider-zod's transforms turn each
 * route's declared zod schemas (routeSchemas.ts) into its operation and the schemas registered as
 * components into `components.schemas` (a request's as `<id>Input`, as the schema accepts it; an
 * answer's as `<id>`, as the service gives it). `root` is what no route declares: info, security
 * schemes, the error bodies and the root `x-` extensions (openApiRoot.ts). Must be registered
 * before the routes.
 */

type Json = Record<string, unknown>;

const zodTransform = createJsonSchemaTransform({ schemaRegistry: openApiComponents, skipList: [] });
const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: openApiComponents });

type TransformInput = Parameters<typeof zodTransform>[0];

/**
 * The library converts an answer's zod bodies only: what else an answer declares (its headers,
 * a body that is a `$ref` to an error body of openApiErrors.ts, a stream's `x-events`, no body at
 * all) it drops or refuses, so it is given the zod bodies and the rest is put back around them.
 */
const zodBodies = ({ description, content = {} }: DeclaredResponse) => ({
  description,
  content: Object.fromEntries(
    Object.entries(content)
      .filter(([, media]) => media.schema instanceof z.ZodType)
      .map(([type, media]) => [type, { schema: media.schema }]),
  ),
});

/**
 * An answer as @fastify/swagger reads it: a header as a schema (the description lifted out,
 * `required` dropped: it travels as `x-required`, put back by restoreOpenApiFields), an answer
 * without a body as one of type null.
 */
function responseForSwagger({ description, headers, content }: DeclaredResponse, converted: Json) {
  const convertedContent = (converted.content ?? {}) as Json;
  return {
    description,
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
        Object.entries(content).map(([type, media]) => [
          type,
          { ...media, ...(convertedContent[type] as Json) },
        ]),
      ),
    }),
  };
}

function transform(input: TransformInput) {
  const { schema, url } = input;
  // A route that declares nothing is no operation of the document (the 405 answers of a path).
  if (!schema) return { schema: { hide: true }, url };
  const { response, ...request } = schema as FastifySchema & { response?: Record<string, DeclaredResponse> };
  const answers = Object.entries(response ?? {});
  const converted = zodTransform({
    ...input,
    schema: {
      ...request,
      response: Object.fromEntries(answers.map(([status, r]) => [status, zodBodies(r)])),
    },
  }) as { schema: Json; url: string };
  const convertedAnswers = converted.schema.response as Record<string, Json>;
  return {
    url,
    schema: {
      ...converted.schema,
      response: Object.fromEntries(
        answers.map(([status, answer]) => [
          status,
          responseForSwagger(answer, convertedAnswers[status] ?? {}),
        ]),
      ),
    },
  };
}

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
 * Registers the generator. The plugin is set up at once rather than through `app.register`, which would
 * load it only when the app gets ready: its onRoute hook sees only the routes declared after it,
 * and the service declares its routes right away.
 */
export function registerOpenApiGeneration(app: FastifyInstance, root: OpenApiRoot): void {
  const options: SwaggerOptions = {
    openapi: root as never,
    // `const` stays `const` (JSON Schema 2020-12), in the error bodies too.
    convertConstToEnum: false,
    transform: transform as never,
    transformObject: (documentObject) => {
      const openapiObject = zodTransformObject(documentObject as never) as Json;
      restoreOpenApiFields(openapiObject.paths as Json);
      return openapiObject as never;
    },
  };
  fastifySwagger(app, options, (error) => {
    if (error) throw error;
  });
}
