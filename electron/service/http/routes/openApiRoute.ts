import type { FastifyInstance } from "fastify";
import { routePath } from "../methodRoutes.ts";
import { buildOpenApiDocument } from "../openApiDocument.ts";

export function registerOpenApiRoute(app: FastifyInstance): void {
  const document = JSON.stringify(buildOpenApiDocument());
  routePath(app, "/openapi.json", {
    get: (_request, reply) => reply.type("application/json; charset=utf-8").send(document),
  });
}
