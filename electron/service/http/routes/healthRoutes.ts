import type { FastifyInstance, FastifyReply, LogLevel } from "fastify";
import { z } from "zod";
import { ApiError } from "../../errors.ts";
import { sendApiError } from "../errorReplies.ts";
import { routePath } from "../methodRoutes.ts";
import { errorResponse } from "../openApiErrors.ts";
import { component, documented, jsonContent } from "../routeSchemas.ts";

const HEALTH_LIVE_PATH = "/local/1/health/live";
/** @internal Exported for tests. */
export const HEALTH_READY_PATH = "/local/1/health/ready";

export interface HealthChecks {
  /** Throws when the store cannot answer (the error is logged, never answered). */
  storeAnswers(): void | Promise<void>;
  /** Whether the service has begun to stop: it drains, so a load balancer should send elsewhere. */
  stopping(): boolean;
}

const OK = JSON.stringify({ status: "ok" });

/**
 * Texts that say what is wrong and nothing about the data: the probes take no credentials, so
 * they name no file, count nothing and pass on no database error (the log has it).
 */
const NOT_READY = "the service cannot read its database; its log says why";
const STOPPING = "the service is stopping; send requests to another instance";

function sendOk(reply: FastifyReply): FastifyReply {
  return reply.header("cache-control", "no-store").type("application/json; charset=utf-8").send(OK);
}

const noStore = {
  "Cache-Control": {
    required: true,
    description: "no-store: a health answer is true only when it is given",
    schema: { type: "string", const: "no-store" },
  },
};
const healthStatus = component("HealthStatus", z.strictObject({ status: z.literal("ok") }));
const ok = (description: string) => ({ description, headers: noStore, content: jsonContent(healthStatus) });

const SEVERITY: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** warn, or the service's own level where that is quieter (a route's level replaces the service's). */
export function quieterOf(level: string): LogLevel {
  return (SEVERITY[level] ?? Number.POSITIVE_INFINITY) > (SEVERITY.warn as number)
    ? (level as LogLevel)
    : "warn";
}

/**
 * Liveness and readiness for a load balancer or an orchestrator, without credentials. Probed every
 * few seconds, so a healthy answer is not logged (the routes log at warn, or quieter).
 */
export function registerHealthRoutes(app: FastifyInstance, checks: HealthChecks): void {
  const quiet = { logLevel: quieterOf(app.log.level) };
  routePath(
    app,
    HEALTH_LIVE_PATH,
    {
      get: documented(
        {
          tags: ["Health"],
          operationId: "getLiveness",
          summary: "Liveness: the process is up and answering (a Keydesk extension; no credentials)",
          description:
            "For a load balancer or an orchestrator: restart the instance when this fails. It reads nothing; the answer says nothing about the data.",
          security: [],
          response: { 200: ok("The process is up") },
        },
        (_request, reply) => sendOk(reply),
      ),
    },
    quiet,
  );
  routePath(
    app,
    HEALTH_READY_PATH,
    {
      get: documented(
        {
          tags: ["Health"],
          operationId: "getReadiness",
          summary:
            "Readiness: the instance can serve requests, its store answers (a Keydesk extension; no credentials)",
          description:
            "For a load balancer: send requests to the instance only while this answers 200. The store answers a trivial query reading its main tables. The answer names no file, counts nothing and passes on no database error (the service's log has them).",
          security: [],
          response: {
            200: ok("The store answers: the instance is ready"),
            503: {
              ...errorResponse(
                "503",
                "SERVICE_UNAVAILABLE: the store did not answer (a damaged or unreachable database), or the service is stopping",
              ),
              headers: noStore,
            },
          },
        },
        async (request, reply) => {
          reply.header("cache-control", "no-store");
          if (checks.stopping()) return sendApiError(reply, new ApiError("SERVICE_UNAVAILABLE", STOPPING));
          try {
            await checks.storeAnswers();
          } catch (error) {
            request.log.error({ err: error }, "readiness: the database did not answer");
            return sendApiError(reply, new ApiError("SERVICE_UNAVAILABLE", NOT_READY));
          }
          return sendOk(reply);
        },
      ),
    },
    quiet,
  );
}
