import { errorSchemas, refusedRequests, unroutedAnswers } from "./openApiErrors.ts";
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
