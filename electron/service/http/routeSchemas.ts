import type {
  ContextConfigDefault,
  FastifyRequest,
  FastifySchema,
  FastifySerializerCompiler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ACCOUNT_KEY_SEGMENT_PATTERN, KEY_ID_PATTERN } from "../../../shared/apiKeys.ts";
import type { FieldNames } from "./requestValidation.ts";

/**
 * How a route declares its contract: params, query, body and answers as zod schemas on the route
 * itself (`documented`), from which /openapi.json is generated (openApiGeneration.ts).
 *
 * The declared params, query and body are also the request's validation: Fastify validates them
 * with these schemas (requestValidation.ts) and the handler gets the parsed values, typed by the
 * type provider. What a route answers before reading a request's query and body — credentials
 * (401/403/429), the account, key or application its path names (404) — it resolves in `before`,
 * which runs ahead of validation: a request without credentials is a 401 whatever its body, an
 * unknown account a 404 before its body is looked at. Answers are serialized as they always were.
 */

/**
 * The components of the generated document: a schema registered with an `id` is answered as a
 * `$ref`. zod's global registry, where `.meta()` keeps descriptions, so that the document has them.
 */
export const openApiComponents = z.globalRegistry;

/**
 * Declares a schema as the document's component `id` (and returns it, for use in other schemas).
 * The document holds it twice, as a request's (`<id>Input`) and as an answer's (`<id>`): see
 * openApiGeneration.ts.
 */
export function component<S extends z.ZodType>(
  id: string,
  schema: S,
  options: { description?: string } = {},
): S {
  // Kept with what `.meta()` already gave it (the registry replaces a schema's metadata).
  openApiComponents.add(schema, {
    ...openApiComponents.get(schema),
    id,
    ...(options.description !== undefined && { description: options.description }),
  });
  return schema;
}

/**
 * A `$ref` to a component (as an answer gives it) where the document holds JSON Schema the
 * generator does not convert: an `x-` extension such as a stream's `x-events`.
 */
export function componentRef(schema: z.ZodType): { $ref: string } {
  const id = openApiComponents.get(schema)?.id;
  if (id === undefined) throw new Error("componentRef: the schema is not a component");
  return { $ref: `#/components/schemas/${id}` };
}

/** The parts of a declared schema the handler's request is typed by (the answers are not checked). */
type RequestSchemas<S extends FastifySchema> = Pick<S, ("params" | "querystring" | "body") & keyof S>;

type Typed<S extends FastifySchema> = Parameters<
  RouteHandlerMethod<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    RequestSchemas<S>,
    ZodTypeProvider
  >
>;

/**
 * A route's handler: `request.params`, `request.query` and `request.body` are what the declared
 * schemas parsed; `resolved` is what the route's `before` gave.
 */
export type DocumentedHandler<S extends FastifySchema, C = undefined> = (
  request: Typed<S>[0],
  reply: Typed<S>[1],
  resolved: C,
) => unknown;

/**
 * What a route answers before its query and body are validated: it authenticates the caller and
 * looks up what the path names, throwing the ApiError it is refused with. The request's params
 * are the path's raw strings here (pathParam). Synchronous where it can be: a sync refusal is
 * answered without a promise (the hot path of App-key authorization).
 */
export type Before<C> = (request: FastifyRequest) => C | Promise<C>;

/** One method of a path with its declared contract (see routePath). */
export interface DocumentedRoute {
  schema: FastifySchema;
  handler: DocumentedHandler<FastifySchema, unknown>;
  before?: Before<unknown>;
  /** How validationErrors names the fields of a body that fails its schema (top-level by default). */
  fieldNames?: FieldNames;
}

/** A route's contract and its handler, the handler typed from the contract. */
export function documented<const S extends FastifySchema>(
  schema: S,
  handler: DocumentedHandler<S>,
  options?: { fieldNames?: FieldNames },
): DocumentedRoute;
/** A route whose `before` resolves the caller and what its path names ahead of validation. */
export function documented<const S extends FastifySchema, C>(
  schema: S,
  steps: { before: Before<C>; handler: DocumentedHandler<S, C>; fieldNames?: FieldNames },
): DocumentedRoute;
export function documented(
  schema: FastifySchema,
  steps: object,
  options: { fieldNames?: FieldNames } = {},
): DocumentedRoute {
  // The overloads typed the handler from the schema; a route holds it as any handler.
  if (typeof steps === "function")
    return { schema, handler: steps as DocumentedRoute["handler"], ...options };
  return { schema, ...(steps as Omit<DocumentedRoute, "schema">) };
}

/** A path parameter as the router matched it (before validation, in `before`): a string. */
export const pathParam = (request: FastifyRequest, name: string): string =>
  (request.params as Record<string, string>)[name] as string;

/** Answers are serialized as before the routes declared them: plain JSON, unchecked. */
export const plainJsonSerializer: FastifySerializerCompiler<unknown> = () => (data) => JSON.stringify(data);

/** One answer of a route as it declares it: OpenAPI's response object, its schemas zod (or `$ref`s). */
export interface DeclaredResponse {
  description: string;
  headers?: Record<string, { required?: boolean; description?: string; schema: object }>;
  content?: Record<string, { schema?: unknown } & Record<string, unknown>>;
}

/**
 * Marks a route's declared body as optional (Fastify's schemas have no word for it; @fastify/swagger
 * documents every body as required).
 */
export const OPTIONAL_BODY = { "x-body-optional": true } as const;

/** A JSON answer of `schema` (zod, or a `$ref` to a component not yet declared in zod). */
export const jsonContent = (schema: z.ZodType | { $ref: string }) => ({
  "application/json": { schema },
});

/** A path segment `_` or 32 hex digits; anything else is answered 404 by the service. */
export const accountKeyParam = z
  .string()
  .regex(ACCOUNT_KEY_SEGMENT_PATTERN)
  .meta({ description: "`_` for the caller's own account, or the accountKey of a sub-account it manages" });
export const keyParam = z.string().regex(KEY_ID_PATTERN).meta({ description: "The key's `key` field" });
