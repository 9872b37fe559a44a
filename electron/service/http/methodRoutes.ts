import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  LogLevel,
  RouteHandlerMethod,
} from "fastify";
import { ApiError } from "../errors.ts";
import { sendApiError } from "./errorReplies.ts";
import { type DocumentedRoute, passThroughValidator, plainJsonSerializer } from "./routeSchemas.ts";

/**
 * Expected refusals (ApiError) are answered right here: sending them through Fastify's
 * rejection and error-handler path cost a third of a refused request. Anything else still
 * goes to the app's error handler.
 */
function answeringApiErrors(handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function (this: FastifyInstance, request, reply) {
    try {
      return await handler.call(this, request, reply);
    } catch (error) {
      if (error instanceof ApiError) return sendApiError(reply, error);
      throw error;
    }
  };
}

/**
 * Registers the handlers of one path and answers every other method the server knows with 405
 * and an `Allow` header, so a client sending PATCH learns it should send PUT instead of a bare
 * 404. HEAD is answered wherever GET is. The 405 is given as the request arrives, before its
 * body is read: whatever the body (none, not JSON, too large), the answer is the same 405.
 * `options.logLevel` applies to the path's routes (a path probed every few seconds logs only trouble).
 * A method given as a DocumentedRoute declares its contract, which /openapi.json is generated from.
 */
export function routePath(
  app: FastifyInstance,
  url: string,
  handlers: Partial<Record<"get" | "post" | "put" | "delete", RouteHandlerMethod | DocumentedRoute>>,
  options: { logLevel?: LogLevel } = {},
): void {
  const entries = Object.entries(handlers) as [string, RouteHandlerMethod | DocumentedRoute][];
  const allowed = entries.map(([method]) => method.toUpperCase());
  if (allowed.includes("GET")) allowed.push("HEAD");
  for (const [method, route] of entries) {
    const { schema, handler } = typeof route === "function" ? { schema: undefined, handler: route } : route;
    app.route({
      method: method.toUpperCase() as HTTPMethods,
      url,
      handler: answeringApiErrors(handler),
      // The schema is the route's contract, not a second validation nor a serializer (routeSchemas.ts).
      ...(schema && {
        schema,
        validatorCompiler: passThroughValidator,
        serializerCompiler: plainJsonSerializer,
      }),
      ...options,
    });
  }
  const allowHeader = allowed.join(", ");
  const refuse = async (request: FastifyRequest, reply: FastifyReply) =>
    sendApiError(
      reply,
      new ApiError(
        "METHOD_NOT_ALLOWED",
        `${request.method} is not allowed here; use ${allowHeader}`,
        undefined,
        {
          allow: allowHeader,
        },
      ),
    );
  app.route({
    method: app.supportedMethods.filter((method) => !allowed.includes(method)) as HTTPMethods[],
    url,
    onRequest: refuse,
    handler: refuse,
    ...options,
  });
}
