import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { parseAuthorization } from "../../auth/authorizationHeader.ts";
import type { BasicAuthenticator } from "../../auth/basicAuthenticator.ts";
import type { IbssoAuthenticator } from "../../auth/ibssoAuthenticator.ts";
import { ApiError } from "../../errors.ts";
import { routePath } from "../methodRoutes.ts";
import { errorResponse } from "../openApiErrors.ts";
import { component, type DeclaredResponse, documented, jsonContent } from "../routeSchemas.ts";
import { bodyErrors, commonErrors, serviceFailures } from "./commonErrors.ts";

const SESSION_PATH = SERVICE_ROUTES.authSession;

const text = (description: string) =>
  z.string({ error: "must be a string" }).min(1, "must not be empty").meta({ description });

const createSessionRequest = component(
  "CreateSessionRequest",
  z.strictObject({
    username: text("The account's username (its Basic credentials)"),
    password: text("The account's password"),
    unsafe: z
      .boolean({ error: "must be true or false" })
      .optional()
      .meta({ description: "Accepted as the provider's SDK may send it; it changes nothing here" }),
  }),
);

const session = component(
  "Session",
  z.strictObject({
    token: z.string().meta({
      description: "Send it as `Authorization: IBSSO <token>`; it lives 60 minutes, and is shown only here",
      examples: ["d3c49f59-734a-4daf-be9a-6188b540358e"],
    }),
  }),
);

const errors: Record<string, DeclaredResponse> = {
  400: errorResponse("400", "Invalid input; validationErrors names each field and what is wrong with it"),
  401: errorResponse("401", "Wrong username or password"),
  ...bodyErrors,
  429: commonErrors["429"],
  ...serviceFailures,
};

const NOT_A_SESSION =
  "ending a session takes its token: Authorization: IBSSO <token> (from POST /auth/1/session)";

/** The session token a DELETE names in its Authorization header; a 401 for anything else. */
function sessionToken(request: FastifyRequest): string {
  const authorization = parseAuthorization(request.headers.authorization);
  if (authorization.scheme === "ibsso") return authorization.token;
  throw new ApiError(
    "UNAUTHORIZED",
    authorization.scheme === "invalid" ? authorization.reason : NOT_A_SESSION,
  );
}

/**
 * The provider's IBSSO sessions (auth/ibssoSessions.ts): a login with the account's Basic
 * credentials in the body (the SDK sends `Authorization: undefined` here, so no header is read),
 * checked and throttled as the Basic scheme is, and its logout.
 */
export function registerAuthSessionRoutes(
  app: FastifyInstance,
  basic: BasicAuthenticator,
  sessions: IbssoAuthenticator,
): void {
  routePath(app, SESSION_PATH, {
    post: documented(
      {
        tags: ["Authentication"],
        operationId: "createIbssoSession",
        summary:
          "Create an IBSSO session from the account's username and password: its token acts as those Basic credentials on the provider's APIs for 60 minutes; an account keeps at most 10 live sessions (an 11th ends the oldest)",
        security: [],
        body: createSessionRequest,
        response: {
          200: { description: "The new session's token", content: jsonContent(session) },
          ...errors,
        },
      },
      async (request) => {
        const account = await basic.authenticate(request.body.username, request.body.password, request.ip);
        return { token: await sessions.create(account) };
      },
    ),
    delete: documented(
      {
        tags: ["Authentication"],
        operationId: "destroyIbssoSession",
        summary: "End the IBSSO session whose token the Authorization header carries",
        security: [{ ibsso: [] }],
        response: {
          204: { description: "The session ended; its token is refused from now on" },
          400: errorResponse("400", "A body came that is not valid JSON (the operation takes none)"),
          401: errorResponse("401", "No IBSSO token, or one that is not known, was ended or has expired"),
          ...bodyErrors,
          ...serviceFailures,
        },
      },
      {
        before: sessionToken,
        handler: async (_request, reply, token) => {
          await sessions.end(token);
          return reply.code(204).send();
        },
      },
    ),
  });
}
