/** Parses the `Authorization` header into the schemes the service knows. */

export type ParsedAuthorization =
  | { scheme: "none" }
  | { scheme: "basic"; username: string; password: string }
  | { scheme: "app"; publicApiKey: string }
  | { scheme: "ibsso"; token: string }
  | { scheme: "invalid"; reason: string };

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
const APP = /^App +([!-~]+) *$/i;
const IBSSO = /^IBSSO +([!-~]+) *$/i;
const BEARER = /^Bearer( |$)/i;

/** What an OAuth 2.0 access token is answered: the service does not simulate OAuth. */
const OAUTH_NOT_SIMULATED =
  "OAuth 2.0 (Authorization: Bearer) is not simulated by this service; use `App <publicApiKey>`, " +
  "Basic credentials or `IBSSO <token>` from POST /auth/1/session";

export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  // The provider's SDK sends the text `undefined` where it has no credentials (its session create).
  if (header === undefined || header.trim() === "" || header.trim() === "undefined")
    return { scheme: "none" };
  const basic = BASIC.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon <= 0) {
      return { scheme: "invalid", reason: "Basic credentials must be base64 of username:password" };
    }
    return { scheme: "basic", username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  const app = APP.exec(header);
  if (app) return { scheme: "app", publicApiKey: app[1] as string };
  const ibsso = IBSSO.exec(header);
  if (ibsso) return { scheme: "ibsso", token: ibsso[1] as string };
  if (BEARER.test(header)) return { scheme: "invalid", reason: OAUTH_NOT_SIMULATED };
  return {
    scheme: "invalid",
    reason:
      "the Authorization header must be `Basic <base64 username:password>`, `App <publicApiKey>` or `IBSSO <token>`",
  };
}
