import { errorResponse, errorSchemas, refusedRequests, unroutedAnswers } from "./openApiErrors.ts";
import type { OpenApiRoot } from "./openApiGeneration.ts";

/**
 * What of /openapi.json no route declares: its info, the security schemes, the error bodies every
 * route answers with and the answers to requests no route takes. The operations are generated from
 * the routes (openApiGeneration.ts).
 */
export function openApiRoot(): OpenApiRoot {
  return {
    openapi: "3.1.0",
    ...unroutedAnswers,
    ...refusedRequests,
    info: {
      title: "Keydesk key service",
      version: "1.0.0",
      description:
        "API key management (create, list, get, update) and the 2FA key endpoint, as implemented by Keydesk's key service, plus the local 2FA simulator (the provider's 2FA v2 routes; messages are captured, never sent) and its PIN inbox.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        basic: { type: "http", scheme: "basic", description: "The account's username and password" },
        app: { type: "apiKey", in: "header", name: "Authorization", description: "`App <publicApiKey>`" },
        ibsso: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description:
            "`IBSSO <token>`, the token of POST /auth/1/session: the account's Basic credentials on the provider's APIs (not on management). OAuth 2.0 (`Bearer`) is not simulated: it is answered 401.",
        },
      },
      schemas: errorSchemas,
    },
  };
}

const storageFailureAnswer = errorResponse(
  "503",
  "The database file is damaged, or its disk is full: the text names the file and what to do; nothing was written",
);

/**
 * Every operation that touches the database may find its file damaged or its disk full: each that
 * documents a 500 documents that 503 too (operations added later included).
 */
export function withStorageFailures(document: Record<string, unknown>): void {
  for (const item of Object.values(document.paths as Record<string, Record<string, unknown>>))
    for (const operation of Object.values(item)) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses;
      if (responses?.["500"]) responses["503"] = storageFailureAnswer;
    }
}
