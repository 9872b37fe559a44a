/** Parses the `Authorization` header into the two schemes the service knows. */

export type ParsedAuthorization =
  | { scheme: "none" }
  | { scheme: "basic"; username: string; password: string }
  | { scheme: "app"; publicApiKey: string }
  | { scheme: "invalid"; reason: string };

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
const APP = /^App +([!-~]+) *$/i;

export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  if (header === undefined || header.trim() === "") return { scheme: "none" };
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
  return {
    scheme: "invalid",
    reason: "the Authorization header must be `Basic <base64 username:password>` or `App <publicApiKey>`",
  };
}
