import type { FastifyRequest } from "fastify";
import type { AppKeyAuthorizer, AuthorizedCall } from "../auth/appKeyAuthorizer.ts";
import { parseAuthorization } from "../auth/authorizationHeader.ts";
import type { BasicAuthenticator } from "../auth/basicAuthenticator.ts";
import type { IbssoAuthenticator } from "../auth/ibssoAuthenticator.ts";
import type { Account } from "../domain/accounts.ts";
import { ApiError } from "../errors.ts";

/** Who is calling a non-management route, and with what. */
interface Caller {
  account: Account;
  via: "basic" | "app" | "ibsso";
  /** The `key` id of the API key used, when via is "app". */
  key?: string;
}

export interface RouteAccess {
  /** One of the seven client-side 2FA methods, which TFA keys may call. */
  tfaMethod: boolean;
}

/**
 * Synchronous for API keys found in the authorization cache (the hot path: a refusal is thrown
 * right here, not passed along a chain of rejected promises); a promise for Basic credentials,
 * which may need scrypt, and for a key the store must be read for.
 */
export type CallerGuard = (request: FastifyRequest, access: RouteAccess) => Caller | Promise<Caller>;

const unauthorized = (text: string) => new ApiError("UNAUTHORIZED", text);

const appCaller = ({ grant, account }: AuthorizedCall): Caller => ({ account, via: "app", key: grant.key });

/**
 * Authorization of every non-management route: an API key (`App <publicApiKey>`) checked
 * against its rules, or the account's Basic credentials, which may call everything, or an IBSSO
 * session's token (`IBSSO <token>`), which stands for them.
 */
export function createCallerGuard(
  basic: BasicAuthenticator,
  appKeys: AppKeyAuthorizer,
  sessions: IbssoAuthenticator,
  now: () => number = Date.now,
): CallerGuard {
  return (request, access) => {
    const authorization = parseAuthorization(request.headers.authorization);
    switch (authorization.scheme) {
      case "none":
        throw unauthorized(
          "this call needs an API key (Authorization: App <publicApiKey>), the account's Basic credentials or an IBSSO session token",
        );
      case "invalid":
        throw unauthorized(authorization.reason);
      case "basic":
        return basic
          .authenticate(authorization.username, authorization.password, request.ip)
          .then((account): Caller => ({ account, via: "basic" }));
      case "ibsso":
        return sessions
          .authenticate(authorization.token)
          .then((account): Caller => ({ account, via: "ibsso" }));
      case "app": {
        const authorized = appKeys.authorize(
          authorization.publicApiKey,
          { now: now(), clientAddress: request.ip, tfaMethod: access.tfaMethod },
          request.raw.socket,
        );
        if (authorized instanceof Promise) return authorized.then(appCaller);
        return appCaller(authorized);
      }
    }
  };
}
