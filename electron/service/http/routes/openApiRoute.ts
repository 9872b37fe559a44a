import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { routePath } from "../methodRoutes.ts";
import { documented, jsonContent } from "../routeSchemas.ts";

/** Serves the document generated from the routes' declared contracts (openApiGeneration.ts). */
export function registerOpenApiRoute(app: FastifyInstance): void {
  let document: string | undefined;
  routePath(app, "/openapi.json", {
    get: documented(
      {
        operationId: "getOpenApiDocument",
        summary: "This document",
        security: [],
        response: {
          200: {
            description: "OpenAPI 3.1 document",
            content: jsonContent(
              z.looseObject({ openapi: z.unknown(), info: z.unknown(), paths: z.unknown() }),
            ),
          },
        },
      },
      (_request, reply) => {
        // Made once, on the first request: every route is registered by then.
        document ??= JSON.stringify(app.swagger());
        return reply.type("application/json; charset=utf-8").send(document);
      },
    ),
  });
}
