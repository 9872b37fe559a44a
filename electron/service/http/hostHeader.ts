import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors.ts";
import { sendApiError } from "./errorReplies.ts";

/**
 * HTTP/1.1 requires a Host header on every request (RFC 9112, 3.2) and a server must refuse one
 * without it. Node does that itself with an empty 400; it is switched off
 * (`requireHostHeader: false`, connectionLimits.ts) so the refusal is made here instead, in the
 * error shape, before anything else looks at the request. HTTP/1.0 has no such rule.
 */
export function refuseRequestsWithoutHost(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    const raw = request.raw;
    if (raw.httpVersion !== "1.1" || raw.headers.host !== undefined) return done();
    // Like Node's own refusal, the connection ends with the answer: the client is not speaking HTTP/1.1.
    reply.header("connection", "close");
    sendApiError(
      reply,
      new ApiError(
        "BAD_REQUEST",
        "HTTP/1.1 requests need a Host header; send one, e.g. Host: 127.0.0.1:8787",
      ),
    );
  });
}
