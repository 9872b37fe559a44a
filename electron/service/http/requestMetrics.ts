import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onResponseHookHandler,
  RouteOptions,
} from "fastify";
import type { ServiceMetrics } from "../metrics/serviceMetrics.ts";

/**
 * The route of requests no route matched (404s of unknown paths): one label value, never the raw URL.
 * @internal Exported for tests.
 */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * Counts and times every answered request by its route template, method and status. Each route
 * gets a hook of its own, bound to its template as it is registered: a hook shared by all routes
 * would have to ask Fastify for the template (`request.routeOptions` builds an object per request).
 * Requests no route matched count under one label value, whatever their URL. Register before the
 * routes.
 */
export function recordRequests(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook("onRoute", (route: RouteOptions) => {
    const record = metrics.route(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      record(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), hook];
  });
  app.addHook("onResponse", (request, reply, done) => {
    if (request.is404) recordUnrouted(metrics, request, reply);
    done();
  });
}

/**
 * Counts a request no route took: a 404 of an unknown path, or the router's own refusal (a path
 * that is not valid percent-encoding, a segment too long for any id), which no hook hears.
 */
export function recordUnrouted(metrics: ServiceMetrics, request: FastifyRequest, reply: FastifyReply): void {
  metrics.route(UNMATCHED_ROUTE)(request.method, reply.statusCode, reply.elapsedTime / 1000);
}
