import type { FastifyInstance } from "fastify";
import { ApiError } from "../../errors.ts";
import type { MetricsAllowList } from "../../metrics/metricsAllowList.ts";
import type { ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import { sendApiError } from "../errorReplies.ts";
import { routePath } from "../methodRoutes.ts";
import { quieterOf } from "./healthRoutes.ts";

export const METRICS_PATH = "/metrics";

/**
 * Prometheus' scrape (serve --metrics), without credentials: only addresses of the allow list
 * are answered (the client address as the service sees it: the socket's peer, or the address a
 * trusted proxy forwarded). Scraped every few seconds, so a scrape is not logged (warn, as health).
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  allow: MetricsAllowList,
): void {
  routePath(
    app,
    METRICS_PATH,
    {
      get: async (request, reply) => {
        reply.header("cache-control", "no-store");
        if (!allow.allows(request.ip))
          return sendApiError(
            reply,
            new ApiError(
              "FORBIDDEN",
              `the metrics are answered only to the addresses of the service's --metrics-allow, and ${request.ip} is not one of them`,
            ),
          );
        const { contentType, text } = await metrics.scrape();
        return reply.type(contentType).send(text);
      },
    },
    { logLevel: quieterOf(app.log.level) },
  );
}
