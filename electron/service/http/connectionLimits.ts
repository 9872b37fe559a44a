import type { Server } from "node:http";
import type { FastifyBaseLogger } from "fastify";

/**
 * How long a client may take to send a request, and how many connections the service holds at
 * once. Without these a client that sends a few bytes of a body and then nothing keeps its
 * connection (and a file descriptor) forever, and enough of them exhaust the process's
 * descriptors: every new client, and the database, is refused until the attacker leaves.
 */
export interface ConnectionLimits {
  /** Seconds to receive a whole request, headers and body; a client slower than that gets a 408. */
  requestTimeoutSeconds: number;
  /** Connections held at once; further ones are closed as they are accepted. */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  // A request body is at most 64 KiB: 30 s is room for a very slow link, and it bounds how long a
  // stalled client holds a connection.
  requestTimeoutSeconds: 30,
  // Far more than the service's clients need (the desktop, a team's apps and sync peers) and
  // below the 1,024 descriptors of the smallest common limit, so the database, the data key and
  // outgoing sync connections always find a descriptor.
  maxConnections: 1000,
};

/** Bounds the command line and environment accept (a day; Node's descriptor tables). */
export const CONNECTION_LIMIT_RANGES = {
  requestTimeoutSeconds: { min: 1, max: 86_400 },
  maxConnections: { min: 1, max: 1_000_000 },
} as const;

/**
 * The Fastify options that time requests out. Node checks the deadlines of requests being
 * received every `connectionsCheckingInterval` (30 s by default, as long as the timeout
 * itself): a quarter of the timeout, at most a second, keeps a stalled client within about
 * one timeout and a second of its deadline. The timeout covers only receiving the request:
 * answers that last (the PIN event stream) are not cut by it.
 */
export function requestTimeoutOptions(limits: ConnectionLimits) {
  const timeoutMs = limits.requestTimeoutSeconds * 1000;
  return {
    requestTimeout: timeoutMs,
    http: {
      requestTimeout: timeoutMs,
      // Headers are part of the request: the same deadline (Node's own is 60 s, later than ours).
      headersTimeout: timeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(timeoutMs / 4)),
      // A request without Host is refused by our own hook, in the error shape, rather than by
      // Node with an empty 400 (see hostHeader.ts).
      requireHostHeader: false,
    },
  };
}

/**
 * Caps the connections the server holds. Node closes a connection over the cap as soon as it
 * is accepted, before reading anything, so there is no answer to give; the log says so, at
 * most once a minute, so a flood does not flood the log too.
 */
export function capConnections(server: Server, limits: ConnectionLimits, log: FastifyBaseLogger): void {
  server.maxConnections = limits.maxConnections;
  let lastLogged = Number.NEGATIVE_INFINITY;
  server.on("drop", () => {
    const now = Date.now();
    if (now - lastLogged < 60_000) return;
    lastLogged = now;
    log.warn(
      { maxConnections: limits.maxConnections },
      "connection refused: the service holds its maximum of connections (--max-connections)",
    );
  });
}
