import type { FastifyInstance } from "fastify";
import { routePath } from "../methodRoutes.ts";
import { buildOpenApiDocument } from "../openApiDocument.ts";

/** `metrics`: whether /metrics is served (and so documented). */
export function registerOpenApiRoute(app: FastifyInstance, options: { metrics?: boolean } = {}): void {
  const document = JSON.stringify(buildOpenApiDocument(options));
  routePath(app, "/openapi.json", {
    get: (_request, reply) => reply.type("application/json; charset=utf-8").send(document),
  });
}
