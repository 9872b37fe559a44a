import type { FastifyRequest } from "fastify";

/** Query parameters whose values are secrets and never reach the log. */
const SECRET_QUERY_PARAMETERS = /([?&]publicApiKey=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMETERS, "$1[redacted]");
}

/** What a request log line holds: no headers (Authorization), no body, no secret query values. */
export function requestLogFields(request: FastifyRequest) {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
}
