import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { normalizeIpEntry } from "../../../../shared/ip.ts";
import { ApiError } from "../../errors.ts";
import type { MetricsAllowList } from "../../metrics/metricsAllowList.ts";
import type { ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import { sendApiError } from "../errorReplies.ts";
import { routePath } from "../methodRoutes.ts";
import { errorResponse } from "../openApiErrors.ts";
import { documented } from "../routeSchemas.ts";
import { quieterOf } from "./healthRoutes.ts";

const METRICS_PATH = "/metrics";

const noStore = {
  "Cache-Control": {
    required: true,
    description: "no-store: the numbers are true only when they are read",
    schema: { type: "string", const: "no-store" },
  },
};

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
      get: documented(
        {
          tags: ["Monitoring"],
          operationId: "getMetrics",
          summary:
            "The service's metrics in Prometheus' text format (a Keydesk extension; no credentials, allowed addresses only)",
          description:
            "Served only when the service runs with `--metrics` (KEY_SERVICE_METRICS), and only to client addresses of `--metrics-allow` (KEY_SERVICE_METRICS_ALLOW; loopback by default). Requests, App authorizations, caches, the database pool and change feed, sync runs, list workers, PINs sent, and the process (CPU, memory, event-loop delay). No label names a key, a publicApiKey, an account or a username.",
          security: [],
          response: {
            200: {
              description: "Prometheus text exposition format, version 0.0.4",
              headers: noStore,
              content: { "text/plain": { schema: z.string() } },
            },
            403: {
              ...errorResponse(
                "403",
                "FORBIDDEN: the client's address is not in the service's --metrics-allow",
              ),
              headers: noStore,
            },
          },
        },
        async (request, reply) => {
          reply.header("cache-control", "no-store");
          if (!allow.allows(request.ip))
            return sendApiError(
              reply,
              new ApiError(
                "FORBIDDEN",
                `the metrics are answered only to the addresses of the service's --metrics-allow, and ${shownAddress(request.ip)} is not one of them`,
              ),
            );
          const { contentType, text } = await metrics.scrape();
          return reply.type(contentType).send(text);
        },
      ),
    },
    { logLevel: quieterOf(app.log.level) },
  );
}

/**
 * The refused client's address as the answer names it: an address helps an admin fix the list,
 * but behind a trusted proxy it is the forwarded header's text, which is not echoed unless it is
 * an IP address.
 */
function shownAddress(clientAddress: string): string {
  const address = clientAddress.includes("/") ? null : normalizeIpEntry(clientAddress);
  return address ?? "the forwarded client address (not an IP address)";
}
