import type { FastifyInstance } from "fastify";

/**
 * A refused request's body up to this size is read (and dropped) before the answer goes out.
 * @internal Exported for tests.
 */
export const DRAIN_LIMIT_BYTES = 4 * 1024 * 1024;
/**
 * How long a refused body may take to arrive before the answer goes out anyway.
 * @internal Exported for tests.
 */
export const DRAIN_TIME_MS = 3_000;

/**
 * An answer sent before its request's body has arrived (413 on a Content-Length over the limit,
 * 415, 401, 405: none reads the body) waits for the rest of that body, read and dropped. Closing
 * a connection with unread bytes (Fastify closes it after a body it refused, a client may ask for
 * a close) makes the kernel reset it, and a reset can destroy the answer before the client reads
 * it: a client sending 70 KB would see "connection reset" instead of the documented 413. A body over
 * DRAIN_LIMIT_BYTES, or one that does not arrive within DRAIN_TIME_MS, is not waited for: its
 * answer goes out at once and the connection closes.
 */
export function drainUnreadBodies(app: FastifyInstance): void {
  app.addHook("onSend", (request, reply, payload, done) => {
    const incoming = request.raw;
    // readableEnded: a body read to its end where `complete` is not kept (Fastify's inject).
    if (incoming.complete || incoming.readableEnded || incoming.destroyed) {
      done(null, payload);
      return;
    }
    if (Number(incoming.headers["content-length"]) > DRAIN_LIMIT_BYTES) {
      reply.header("connection", "close");
      done(null, payload);
      return;
    }
    let left = DRAIN_LIMIT_BYTES;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("close", onClose);
      if (!drained) reply.header("connection", "close");
      done(null, payload);
    };
    const onData = (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(incoming.complete);
    const timer = setTimeout(() => finish(false), DRAIN_TIME_MS);
    incoming.on("data", onData);
    incoming.once("end", onEnd);
    incoming.once("close", onClose);
    incoming.resume();
  });
}
