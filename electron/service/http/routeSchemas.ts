import type {
  ContextConfigDefault,
  FastifySchema,
  FastifySchemaCompiler,
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

/**
 * How a route declares its contract: params, query, body and answers as zod schemas on the route
 * itself (`documented`), from which /openapi.json is generated (openApiGeneration.ts).
 *
 * Fastify does not validate with these schemas: the service validates the same schema objects
 * itself, after authentication (a request without credentials is a 401 whatever its body, an
 * unknown account a 404 before its body is read), and the answers are serialized as they always
 * were. The type provider types `request.params` from the declared schema.
 */

/**
 * The components of the generated document: a schema registered with an `id` is answered as a
 * `$ref`. zod's global registry, where `.meta()` keeps descriptions, so that the document has them.
 */
export const openApiComponents = z.globalRegistry;

/** Components that describe what a client sends (documented as the schema accepts, not as it answers). */
export const componentIo = new Map<string, "input" | "output">();

/**
 * Declares a schema as the document's component `id` (and returns it, for use in other schemas);
 * `io: "input"` for a request's schema.
 */
export function component<S extends z.ZodType>(
  id: string,
  schema: S,
  options: { description?: string; io?: "input" | "output" } = {},
): S {
  // Kept with what `.meta()` already gave it (the registry replaces a schema's metadata).
  openApiComponents.add(schema, {
    ...openApiComponents.get(schema),
    id,
    ...(options.description !== undefined && { description: options.description }),
  });
  componentIo.set(id, options.io ?? "output");
  return schema;
}

/**
 * A route's handler, its `request.params` typed by the params schema the route declares. Only the
 * params: they are strings whatever the schema says, while the query, the body and the headers
 * reach the handler unvalidated and stay `unknown` (the service validates them).
 */
type DocumentedHandler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  Pick<S, "params" & keyof S>,
  ZodTypeProvider
>;

/** One method of a path with its declared contract (see routePath). */
export interface DocumentedRoute {
  schema: FastifySchema;
  handler: RouteHandlerMethod;
}

/** A route's contract and its handler, the handler typed from the contract. */
export function documented<const S extends FastifySchema>(
  schema: S,
  handler: DocumentedHandler<S>,
): DocumentedRoute {
  return { schema, handler: handler as unknown as RouteHandlerMethod };
}

/**
 * The route's schemas are its contract, not a second validation (see above): data pass as they
 * came. `true` rather than `{ value }`, which Fastify would write back (an absent body as null).
 */
export const passThroughValidator: FastifySchemaCompiler<unknown> = () => () => true;
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
