import net from "node:net";

/**
 * A TCP connection to a service, driven byte by byte: for what no HTTP client sends (a body that
 * stops, a head the parser refuses, a connection that never sends anything).
 */

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the connection has closed (by either side, or failed), with what was received. */
  closed: Promise<string>;
  /**
   * Resolves once an answer's head and its Content-Length of body have arrived (the first one
   * received after the first `after` characters).
   */
  answer(after?: number): Promise<RawAnswer>;
  /** The error code the connection failed with (ECONNRESET when the server reset it), if it did. */
  failure(): string | undefined;
}

/** Connects; resolves once connected (an accepted connection may still be closed right after). */
export function connectRaw(port: number, host = "127.0.0.1"): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host });
    const chunks: Buffer[] = [];
    const waiters = new Set<() => void>();
    const received = () => Buffer.concat(chunks).toString("utf8");
    const closed = new Promise<string>((resolveClosed) => {
      socket.on("close", () => {
        resolveClosed(received());
        for (const waiter of waiters) waiter();
      });
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      for (const waiter of waiters) waiter();
    });
    // A reset by the server is a way of closing too; `closed` reports it, `failure` names it.
    let failure: string | undefined;
    socket.on("error", (error: NodeJS.ErrnoException) => {
      failure ??= error.code ?? error.message;
    });
    const answer = (after = 0) =>
      new Promise<RawAnswer>((resolveAnswer, rejectAnswer) => {
        const check = () => {
          const parsed = parseAnswer(received().slice(after));
          if (parsed) {
            waiters.delete(check);
            resolveAnswer(parsed);
          } else if (socket.destroyed) {
            waiters.delete(check);
            rejectAnswer(
              new Error(`connection closed without a whole answer: ${JSON.stringify(received())}`),
            );
          }
        };
        waiters.add(check);
        check();
      });
    socket.once("connect", () => resolve({ socket, received, closed, answer, failure: () => failure }));
    socket.once("error", reject);
  });
}

/** The first whole answer in `raw` (framed by Content-Length), or undefined if it has not all arrived. */
export function parseAnswer(raw: string): RawAnswer | undefined {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = Buffer.from(raw.slice(end + 4), "utf8");
  const length = Number(headers["content-length"] ?? 0);
  if (body.length < length) return undefined;
  const text = body.subarray(0, length).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]), headers, text, json };
}

/** Resolves with `promise`'s value, or rejects naming `what` once `ms` have passed. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms);
    }),
  ]);
}
