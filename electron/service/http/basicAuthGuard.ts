import type { FastifyRequest } from "fastify";
import type { AppKeyAuthorizer } from "../auth/appKeyAuthorizer.ts";
import { parseAuthorization } from "../auth/authorizationHeader.ts";
import type { BasicAuthenticator } from "../auth/basicAuthenticator.ts";
import type { IbssoAuthenticator } from "../auth/ibssoAuthenticator.ts";
import type { Account } from "../domain/accounts.ts";
import { ApiError } from "../errors.ts";
import { apiKeyRefusalText, ibssoRefusalText } from "./basicOnlyRefusal.ts";

const CHALLENGE = { "www-authenticate": 'Basic realm="key-service", charset="UTF-8"' };

const unauthorized = (text: string) => new ApiError("UNAUTHORIZED", text, undefined, CHALLENGE);

/**
 * Management calls take Basic credentials only; an API key or an IBSSO session's token is refused
 * (403) even when it is valid, and answered 401 when it is not.
 */
export type BasicGuard = (request: FastifyRequest) => Promise<Account>;

export async function requireBasicAccount(
  request: FastifyRequest,
  basic: BasicAuthenticator,
  appKeys: AppKeyAuthorizer,
  sessions: IbssoAuthenticator,
): Promise<Account> {
  const authorization = parseAuthorization(request.headers.authorization);
  switch (authorization.scheme) {
    case "none":
      throw unauthorized(
        "this call needs the account's credentials: Authorization: Basic <base64 username:password>",
      );
    case "invalid":
      throw unauthorized(authorization.reason);
    case "app":
      if (!(await appKeys.knows(authorization.publicApiKey))) throw unauthorized("the API key is not known");
      throw new ApiError("FORBIDDEN", apiKeyRefusalText(request.url));
    case "ibsso":
      try {
        await sessions.authenticate(authorization.token);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) throw unauthorized(error.message);
        throw error;
      }
      throw new ApiError("FORBIDDEN", ibssoRefusalText(request.url));
    case "basic":
      try {
        return await basic.authenticate(authorization.username, authorization.password, request.ip);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) throw unauthorized(error.message);
        throw error;
      }
  }
}
