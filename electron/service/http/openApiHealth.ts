import { errorResponse } from "./openApiErrors.ts";
import { json, ref } from "./openApiParts.ts";

/** Liveness and readiness (healthRoutes.ts): the load balancer's part of the OpenAPI document. */

const noStore = {
  "Cache-Control": {
    required: true,
    description: "no-store: a health answer is true only when it is given",
    schema: { type: "string", const: "no-store" },
  },
};

export const healthSchemas = {
  HealthStatus: {
    type: "object",
    required: ["status"],
    additionalProperties: false,
    properties: { status: { type: "string", const: "ok" } },
  },
};

const ok = (description: string) => ({ description, headers: noStore, content: json(ref("HealthStatus")) });

export const healthPaths = {
  "/local/1/health/live": {
    get: {
      tags: ["Health"],
      operationId: "getLiveness",
      summary: "Liveness: the process is up and answering (a Keydesk extension; no credentials)",
      description:
        "For a load balancer or an orchestrator: restart the instance when this fails. It reads nothing; the answer says nothing about the data.",
      security: [],
      responses: { "200": ok("The process is up") },
    },
  },
  "/local/1/health/ready": {
    get: {
      tags: ["Health"],
      operationId: "getReadiness",
      summary:
        "Readiness: the instance can serve requests, its store answers (a Keydesk extension; no credentials)",
      description:
        "For a load balancer: send requests to the instance only while this answers 200. The store answers a trivial query reading its main tables. The answer names no file, counts nothing and passes on no database error (the service's log has them).",
      security: [],
      responses: {
        "200": ok("The store answers: the instance is ready"),
        "503": {
          ...errorResponse(
            "503",
            "SERVICE_UNAVAILABLE: the store did not answer (a damaged or unreachable database), or the service is stopping",
          ),
          headers: noStore,
        },
      },
    },
  },
};
