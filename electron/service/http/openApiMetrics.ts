import { errorResponse } from "./openApiErrors.ts";

/**
 * Prometheus' scrape (routes/metricsRoutes.ts): part of the OpenAPI document only while the service
 * serves it (`serve --metrics`); otherwise /metrics is a path like any unknown one.
 */

const noStore = {
  "Cache-Control": {
    required: true,
    description: "no-store: the numbers are true only when they are read",
    schema: { type: "string", const: "no-store" },
  },
};

export const metricsPaths = {
  "/metrics": {
    get: {
      tags: ["Monitoring"],
      operationId: "getMetrics",
      summary:
        "The service's metrics in Prometheus' text format (a Keydesk extension; no credentials, allowed addresses only)",
      description:
        "Served only when the service runs with `--metrics` (KEY_SERVICE_METRICS), and only to client addresses of `--metrics-allow` (KEY_SERVICE_METRICS_ALLOW; loopback by default). Requests, App authorizations, caches, the database pool and change feed, sync runs, list workers, PINs sent, and the process (CPU, memory, event-loop delay). No label names a key, a publicApiKey, an account or a username.",
      security: [],
      responses: {
        "200": {
          description: "Prometheus text exposition format, version 0.0.4",
          headers: noStore,
          content: { "text/plain": { schema: { type: "string" } } },
        },
        "403": {
          ...errorResponse("403", "FORBIDDEN: the client's address is not in the service's --metrics-allow"),
          headers: noStore,
        },
      },
    },
  },
};
