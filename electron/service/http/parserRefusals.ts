import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "../errors.ts";

/**
 * Requests Node's HTTP server refuses before any route sees them: what its parser (llhttp)
 * cannot read, a request head over the size limit, and a request not received within the
 * request timeout. Each is answered in the same error shape as everything else, with a text
 * naming what is wrong, and the connection is closed, as Node itself does: after a framing
 * error the next request's start cannot be found.
 */

interface ParserError extends NodeJS.ErrnoException {
  /** llhttp's own wording, e.g. "Content-Length can't be present with Transfer-Encoding". */
  reason?: string;
}

interface Refusal {
  status: number;
  statusText: string;
  text: string;
}

const badRequest = (text: string): Refusal => ({ status: 400, statusText: "Bad Request", text });

const REQUEST_LINE = badRequest(
  "the request line is not valid HTTP/1.1 (METHOD /path HTTP/1.1, lines ending in CRLF); " +
    "percent-encode non-ASCII characters, spaces and control characters in the path",
);

/** By llhttp error code; codes not listed are problems of the request line. */
const REFUSALS: Record<string, Refusal> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    statusText: "Request Timeout",
    text: "the request was not received in time (the whole request, body included, must arrive within the service's request timeout); send it again",
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    statusText: "Request Header Fields Too Large",
    text: "the request headers are too large; send fewer or shorter ones",
  },
  HPE_INVALID_METHOD: badRequest(
    "the request method is not a valid HTTP method; use GET, POST, PUT or DELETE",
  ),
  HPE_INVALID_HEADER_TOKEN: badRequest(
    "a request header is not valid: header names are tokens without spaces, values have no control characters, and folded (continued) lines are not accepted",
  ),
  HPE_INVALID_CONTENT_LENGTH: badRequest(
    "the Content-Length header is not a number; send the body's length in bytes",
  ),
  HPE_UNEXPECTED_CONTENT_LENGTH: badRequest(
    "the request has more than one Content-Length header; send exactly one",
  ),
  HPE_INVALID_TRANSFER_ENCODING: badRequest(
    "Transfer-Encoding is not supported unless it ends with chunked; send the body with Content-Length, or chunked",
  ),
  HPE_INVALID_CHUNK_SIZE: badRequest(
    "the chunked request body is malformed: each chunk starts with its size in hexadecimal and a CRLF",
  ),
  HPE_CR_EXPECTED: badRequest("the request is not valid HTTP: lines must end with CRLF"),
  HPE_LF_EXPECTED: badRequest("the request is not valid HTTP: lines must end with CRLF"),
};

/** A request with both framings could be read two ways (request smuggling): llhttp refuses it. */
const BOTH_FRAMINGS = badRequest(
  "the request has both Transfer-Encoding and Content-Length; send only one of them (Content-Length, or Transfer-Encoding: chunked)",
);

const BAD_CHUNK_EXTENSION = badRequest(
  "the chunked request body is malformed: a chunk extension is not valid; send chunks without extensions",
);

function refusalOf(error: ParserError): Refusal {
  const reason = error.reason ?? "";
  if (error.code === "HPE_INVALID_CONTENT_LENGTH" && /Transfer-Encoding/i.test(reason)) return BOTH_FRAMINGS;
  if (error.code === "HPE_STRICT" && /chunk/i.test(reason)) return BAD_CHUNK_EXTENSION;
  return (error.code ? REFUSALS[error.code] : undefined) ?? REQUEST_LINE;
}

/** The `clientError` handler of the HTTP server (Fastify's `clientErrorHandler`). */
export function writeClientError(error: ParserError, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // An answer already under way on this connection (its head written) cannot be followed by
  // another one in the middle: the connection just ends, as Node does.
  const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const { status, statusText, text } = refusalOf(error);
    const body = new ApiError("BAD_REQUEST", text).toJson();
    socket.write(
      `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
