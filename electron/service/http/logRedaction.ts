import type { FastifyRequest } from "fastify";
import { redactSecretsInUrl } from "./urlSecrets.ts";

/** Query parameters whose values are secrets and never reach the log (compared lowercased). */
const SECRET_QUERY_PARAMETERS = new Set(["publicapikey"]);

/** A parameter name as the query parser sees it: `public%41piKey` is `publicApiKey`. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " ")).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/**
 * The URL as logged: every value shaped like a secret redacted wherever it is (urlSecrets.ts), and
 * the value of a parameter named publicApiKey whatever its shape (a key imported from elsewhere
 * may not look like ours).
 */
export function redactUrl(url: string): string {
  return redactSecretsInUrl(redactSecretParameters(url));
}

function redactSecretParameters(url: string): string {
  const queryStart = url.indexOf("?");
  if (queryStart === -1) return url;
  const pairs = url
    .slice(queryStart + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      if (equals === -1) return pair;
      const name = pair.slice(0, equals);
      return SECRET_QUERY_PARAMETERS.has(decodedName(name)) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, queryStart + 1)}${pairs.join("&")}`;
}

/** What a request log line holds: no headers (Authorization), no body, no secret query values. */
export function requestLogFields(request: FastifyRequest) {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
}
