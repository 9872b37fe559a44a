import type { FastifyReply } from "fastify";
import { writeOrDisconnect } from "./slowClient.ts";

const HEARTBEAT_MS = 15_000;

export interface EventStream {
  /** Writes one event: `event: <name>` and the JSON of `data`. */
  send(name: string, data: unknown): void;
  /** Ends the stream (idempotent); also runs when the client goes away. */
  close(): void;
}

/**
 * Turns a reply into a server-sent event stream: the headers, a first comment so clients see the
 * stream open, a heartbeat comment every 15 s so idle proxies and clients keep it, and `onClose`
 * once, whether the client disconnects or the server ends the stream. A client that stops reading
 * is disconnected once its unsent backlog passes `MAX_UNSENT_BYTES` (slowClient.ts) rather than
 * buffered for without limit.
 */
export function openEventStream(
  reply: FastifyReply,
  onClose: () => void,
  heartbeatMs = HEARTBEAT_MS,
): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    // The socket ends with the stream: kept alive, a stream the server ends while it stops would
    // leave an idle socket that holds the stop open until the keep-alive timeout (72 s).
    connection: "close",
  });
  raw.write(": connected\n\n");
  const heartbeat = setInterval(() => writeOrDisconnect(raw, ": heartbeat\n\n"), heartbeatMs);
  heartbeat.unref();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    onClose();
    if (!raw.writableEnded) raw.end();
  };
  raw.on("close", close);
  raw.on("error", close);
  return {
    send(name, data) {
      if (!closed) writeOrDisconnect(raw, `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close,
  };
}
