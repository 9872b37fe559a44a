// The bridge over HTTP for a browser: the built renderer and the same core behind the same
// contract, on 127.0.0.1 only, guarded by a random session token. The token reaches the host in
// the keydesk-token header (bridge calls), ?token= (the page's first load, the event stream);
// a cookie with a separate secret lets in the renderer's static files only. No `electron` import.

import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sep } from "node:path";
import type { BridgeError, BridgeEvent, BridgeResult } from "../../shared/bridge.ts";
import { isBridgeMethod } from "../../shared/bridgeMethods.ts";
import { TOKEN_HEADER, UPLOAD_NAME_HEADER } from "../../shared/httpHeaders.ts";
import { DOWNLOAD_PATH_PREFIX } from "../main/core/exportDownloads.ts";
import { MAX_UPLOAD_BYTES, UploadTooLarge } from "../main/core/restoreSources.ts";
import type { KeydeskCore } from "../main/corePorts.ts";
import { CONTENT_SECURITY_POLICY } from "../main/security.ts";
import { writeOrDisconnect } from "../service/http/slowClient.ts";
import { assetCookieHeader, assetCookieMatches, newAssetSecret } from "./assetCookie.ts";
import {
  contentTypeOf,
  isAllowedHost,
  newSessionToken,
  resolveStaticPath,
  tokenMatches,
} from "./hostSecurity.ts";
import { type TokenProblem, tokenHelpPage, wantsPage } from "./tokenHelpPage.ts";

/** Where the page uploads a backup to restore; its file name comes URI-encoded in UPLOAD_NAME_HEADER. */
const UPLOAD_PATH = "/upload/backup";
const MAX_BODY_BYTES = 1024 * 1024;
const HEARTBEAT_MS = 20_000;
/** How long close() lets requests in flight finish before it cuts their connections. */
const CLOSE_GRACE_MS = 5_000;

export interface BrowserHostOptions {
  core: KeydeskCore;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** 0 picks a free port. */
  port: number;
  /** The session token; a fresh random one unless given. */
  token?: string;
}

export interface BrowserHost {
  /** The page's address with the token, e.g. http://127.0.0.1:PORT/?token=TOKEN. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  // The page's URL holds the token: never send it anywhere as a Referer.
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

function failure(messageId: BridgeError["messageId"], text: string): BridgeResult<never> {
  return { ok: false, error: { messageId, text } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new BodyTooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
  const token = options.token ?? newSessionToken();
  const rendererRoot = await realpath(options.rendererDir);
  const streams = new Set<ServerResponse>();
  // Separate from the token: the cookie reaches every port of 127.0.0.1 (see assetCookie.ts).
  const assetSecret = newAssetSecret();
  let port = options.port;

  /** Whether the right token came along, or which problem there is with it. */
  const tokenProblem = (presented: Array<string | string[] | undefined>): TokenProblem | undefined => {
    const given = presented.filter((value) => value !== undefined);
    if (given.length === 0) return "missing";
    return given.some((value) => tokenMatches(value, token)) ? undefined : "wrong";
  };

  /**
   * For a static file: a ?token= (the page's navigation) must be the token, since the page takes
   * it for its bridge calls; otherwise the token header or the static-files cookie will do.
   */
  const staticProblem = (
    fromQuery: string | undefined,
    fromHeader: string | string[] | undefined,
    cookieHeader: string | undefined,
  ): TokenProblem | undefined => {
    if (fromQuery !== undefined) return tokenMatches(fromQuery, token) ? undefined : "wrong";
    const cookie = assetCookieMatches(cookieHeader, port, assetSecret);
    if (cookie === true) return undefined;
    const header = tokenProblem([fromHeader]);
    return header === "missing" && cookie === false ? "wrong" : header;
  };

  /** 401 for a missing token, 403 for a wrong one. */
  const refuse = (res: ServerResponse, problem: TokenProblem): void => {
    if (problem === "missing") {
      sendJson(
        res,
        401,
        failure("UNAUTHORIZED", "The session token is missing: open the address keydesk web printed."),
      );
    } else if (problem === "wrong") {
      sendJson(
        res,
        403,
        failure("FORBIDDEN", "The session token is wrong: open the address keydesk web printed."),
      );
    }
  };

  /** Refuses the request unless the right token came along; true when it did. */
  const authorized = (res: ServerResponse, presented: Array<string | string[] | undefined>): boolean => {
    const problem = tokenProblem(presented);
    if (problem) refuse(res, problem);
    return problem === undefined;
  };

  const serveBridgeCall = async (
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
  ): Promise<void> => {
    if (req.method !== "POST") {
      sendJson(res, 405, failure("METHOD_NOT_ALLOWED", "Bridge calls are POST requests."), { Allow: "POST" });
      return;
    }
    // The header only (no cookie, no query): a page of another origin can neither read the token
    // nor send this header without a CORS preflight, which this host never grants. The
    // static-files cookie's secret is not the token, so a server that received it cannot call.
    if (!authorized(res, [req.headers[TOKEN_HEADER]])) {
      return;
    }
    if (!isBridgeMethod(method)) {
      sendJson(res, 404, failure("NOT_FOUND", `There is no bridge method "${method}".`));
      return;
    }
    let text: string;
    try {
      text = await readBody(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendJson(
          res,
          413,
          failure("PAYLOAD_TOO_LARGE", `The argument is larger than ${MAX_BODY_BYTES} bytes.`),
        );
        return;
      }
      throw error;
    }
    let args: unknown;
    if (text.length > 0) {
      if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
        sendJson(
          res,
          415,
          failure("UNSUPPORTED_MEDIA_TYPE", "The argument must be sent as application/json."),
        );
        return;
      }
      try {
        args = JSON.parse(text);
      } catch {
        sendJson(res, 400, failure("INVALID_ARGUMENT", "The argument is not valid JSON."));
        return;
      }
    }
    sendJson(res, 200, await options.core.dispatch(method, args));
  };

  /**
   * An export's one download (keys.export answers its address): the page navigates to it, so the
   * file goes from here to the browser's downloads without passing through the page's JS. The
   * session token must come along (header, or ?token= as a navigation cannot send headers); the
   * random id is good for one GET within a minute.
   */
  const serveDownload = (req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams) => {
    if (req.method !== "GET") {
      sendJson(res, 405, failure("METHOD_NOT_ALLOWED", "A download is a GET request."), { Allow: "GET" });
      return;
    }
    if (!authorized(res, [req.headers[TOKEN_HEADER], query.get("token") ?? undefined])) return;
    const file = /^[0-9a-f]{32}$/.test(id) ? options.core.takeDownload(id) : undefined;
    if (!file) {
      sendJson(
        res,
        404,
        failure(
          "NOT_FOUND",
          "This download is gone (each export downloads once, within a minute); export again.",
        ),
      );
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": file.contentType,
      "Content-Length": file.body.length,
      "Content-Disposition": `attachment; filename="${file.fileName}"`,
    });
    res.end(file.body);
  };

  /**
   * A backup file for a restore (the page has no path to give, and main no dialog here): the body
   * goes to a private file in main, bounded (MAX_UPLOAD_BYTES), and the answer is its id for
   * backup.inspect. The token header only, as for bridge calls: a page of another origin cannot
   * send it, so it cannot plant a file either.
   */
  const serveUpload = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST") {
      sendJson(res, 405, failure("METHOD_NOT_ALLOWED", "An upload is a POST request."), { Allow: "POST" });
      return;
    }
    if (!authorized(res, [req.headers[TOKEN_HEADER]])) return;
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    if (declared > MAX_UPLOAD_BYTES) {
      sendJson(
        res,
        413,
        failure("PAYLOAD_TOO_LARGE", `A backup to restore must be at most ${MAX_UPLOAD_BYTES} bytes.`),
        // The body is never read: the connection ends with the answer.
        { Connection: "close" },
      );
      return;
    }
    const rawName = decodeURIComponentOr(String(req.headers[UPLOAD_NAME_HEADER] ?? "backup"));
    const fileName = rawName.replace(/[^\w .-]/g, "_").slice(0, 200) || "backup";
    try {
      const uploadId = await options.core.acceptUpload(fileName, req);
      sendJson(res, 200, { ok: true, value: { uploadId } });
    } catch (error) {
      if (!(error instanceof UploadTooLarge)) throw error;
      sendJson(
        res,
        413,
        failure("PAYLOAD_TOO_LARGE", `A backup to restore must be at most ${MAX_UPLOAD_BYTES} bytes.`),
        { Connection: "close" },
      );
    }
  };

  let closing = false;

  const serveEvents = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams): void => {
    if (req.method !== "GET") {
      sendJson(res, 405, failure("METHOD_NOT_ALLOWED", "The event stream is a GET request."), {
        Allow: "GET",
      });
      return;
    }
    // EventSource cannot send headers: the token may come in the query (the page's own address
    // is not in any Referer: Referrer-Policy no-referrer). Never the static-files cookie.
    if (!authorized(res, [req.headers[TOKEN_HEADER], query.get("token") ?? undefined])) {
      return;
    }
    if (closing) {
      // A stream opened now would never be ended: close() has already ended the ones it saw.
      sendJson(res, 503, failure("UNREACHABLE", "The browser host is stopping."));
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": "text/event-stream; charset=utf-8",
      // The socket ends with the stream, as the key service's streams do (eventStream.ts): a
      // stream ended by close() would otherwise leave a kept-alive socket holding the stop.
      Connection: "close",
    });
    res.write(": keydesk events\n\n");
    streams.add(res);
    // A page that stops reading (a frozen tab) is disconnected past a bounded backlog rather than
    // buffered for without limit (slowClient.ts); EventSource reconnects by itself.
    const unsubscribe = options.core.onEvent((event: BridgeEvent) => {
      writeOrDisconnect(res, `data: ${JSON.stringify(event)}\n\n`);
    });
    const heartbeat = setInterval(() => writeOrDisconnect(res, ": heartbeat\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    res.on("close", () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(res);
    });
  };

  const serveStatic = async (
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    query: URLSearchParams,
  ): Promise<void> => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      sendJson(res, 405, failure("METHOD_NOT_ALLOWED", "Only GET and HEAD serve files."), {
        Allow: "GET, HEAD",
      });
      return;
    }
    // The page comes with ?token=; it then gets the static-files cookie so that the scripts and
    // styles it loads (which carry no custom header) and a reload are let in too. The cookie
    // holds its own secret, never the token: it is good for these files only.
    const fromQuery = query.get("token") ?? undefined;
    const problem = staticProblem(fromQuery, req.headers[TOKEN_HEADER], req.headers.cookie);
    if (problem && wantsPage(req.headers.accept)) {
      const page = tokenHelpPage(problem);
      res.writeHead(problem === "missing" ? 401 : 403, {
        ...SECURITY_HEADERS,
        "Content-Type": "text/html; charset=utf-8",
        "Content-Length": Buffer.byteLength(page),
      });
      res.end(req.method === "HEAD" ? undefined : page);
      return;
    }
    if (problem) {
      refuse(res, problem);
      return;
    }
    const lexical = resolveStaticPath(rendererRoot, pathname);
    if (lexical === null) {
      sendJson(res, 404, failure("NOT_FOUND", "No such file."));
      return;
    }
    let file: string;
    try {
      file = await realpath(lexical);
      if (!file.startsWith(rendererRoot + sep) || !(await stat(file)).isFile()) {
        throw new Error("not a file of the renderer");
      }
    } catch {
      sendJson(res, 404, failure("NOT_FOUND", "No such file."));
      return;
    }
    const headers: Record<string, string | number> = {
      ...SECURITY_HEADERS,
      "Content-Type": contentTypeOf(file),
      "Content-Length": (await stat(file)).size,
    };
    if (fromQuery !== undefined) {
      headers["Set-Cookie"] = assetCookieHeader(port, assetSecret);
    }
    res.writeHead(200, headers);
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A request that arrives on a connection already open when close() began is still answered,
    // and its connection then ends instead of waiting, kept alive, for one more.
    if (closing) res.setHeader("Connection", "close");
    if (!isAllowedHost(req.headers.host, port)) {
      sendJson(res, 403, failure("FORBIDDEN", "This host answers to 127.0.0.1 and localhost only."));
      return;
    }
    const rawUrl = req.url ?? "/";
    const queryAt = rawUrl.indexOf("?");
    const pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const query = new URLSearchParams(queryAt === -1 ? "" : rawUrl.slice(queryAt + 1));
    if (pathname === "/bridge/events") {
      serveEvents(req, res, query);
    } else if (pathname === UPLOAD_PATH) {
      await serveUpload(req, res);
    } else if (pathname.startsWith(DOWNLOAD_PATH_PREFIX)) {
      serveDownload(req, res, pathname.slice(DOWNLOAD_PATH_PREFIX.length), query);
    } else if (pathname.startsWith("/bridge/")) {
      await serveBridgeCall(req, res, decodeURIComponentOr(pathname.slice("/bridge/".length)));
    } else {
      await serveStatic(req, res, pathname, query);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`keydesk web: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent) {
        sendJson(res, 500, failure("GENERAL_ERROR", "The browser host failed on this request."));
      } else {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolvePromise();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      closing = true;
      for (const stream of streams) {
        stream.end();
      }
      await new Promise<void>((resolvePromise) => {
        // Whatever still holds a connection past the grace (a client that never finishes its
        // request) must not hold the stop.
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(cut);
          resolvePromise();
        });
        server.closeIdleConnections();
      });
    },
  };
}

function decodeURIComponentOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
