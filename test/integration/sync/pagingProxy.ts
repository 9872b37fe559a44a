import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy in front of a key service that records what the sync engine asks and
 * can steer the paging of key lists:
 * - `pageSize`: a key-list request's `limit` is replaced by this one (the engine asks 1,000 per
 *   page; a test gets pages of 100 from a real service without 10,000 keys);
 * - `beforeForward`: awaited before a request goes on (a test changes the remote between pages,
 *   or looks at the link while a page is on its way);
 * - `rewriteQuery`: changes a request's query before it goes on (a cursor the remote rejects);
 * - `rewriteAnswer`: changes a JSON answer before it is passed on (a key the remote stops listing).
 */
export interface PagingProxy {
  url: string;
  /** Requests received, as "METHOD path?query" (before any rewrite). */
  seen: string[];
  pageSize: number | undefined;
  beforeForward: (method: string, url: URL) => Promise<void> | void;
  rewriteQuery: (method: string, url: URL) => void;
  rewriteAnswer: ((method: string, url: URL, json: unknown) => unknown) | undefined;
  /** The key-list requests seen so far (GET .../api-keys, with or without a query). */
  listRequests(): URL[];
  close(): Promise<void>;
}

const LIST_PATH = /^\/settings\/1\/accounts\/[^/]+\/api-keys$/;

export async function startPagingProxy(target: string): Promise<PagingProxy> {
  const targetUrl = new URL(target);
  const proxy: PagingProxy = {
    url: "",
    seen: [],
    pageSize: undefined,
    beforeForward: () => undefined,
    rewriteQuery: () => undefined,
    rewriteAnswer: undefined,
    listRequests: () =>
      proxy.seen
        .filter((line) => line.startsWith("GET "))
        .map((line) => new URL(line.slice(4), "http://proxy"))
        .filter((url) => LIST_PATH.test(url.pathname)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer(async (req, res) => {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://proxy");
    proxy.seen.push(`${method} ${url.pathname}${url.search}`);
    if (
      method === "GET" &&
      LIST_PATH.test(url.pathname) &&
      proxy.pageSize !== undefined &&
      url.searchParams.has("limit")
    ) {
      url.searchParams.set("limit", String(proxy.pageSize));
    }
    try {
      await proxy.beforeForward(method, url);
      proxy.rewriteQuery(method, url);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
      return;
    }
    const upstream = http.request(
      {
        host: targetUrl.hostname,
        port: targetUrl.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers: { ...req.headers, host: targetUrl.host },
      },
      (answer) => {
        const rewrite = proxy.rewriteAnswer;
        if (!rewrite || !String(answer.headers["content-type"]).startsWith("application/json")) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const json = rewrite(method, url, JSON.parse(Buffer.concat(chunks).toString("utf8")));
          const { "content-length": _length, "transfer-encoding": _encoding, ...headers } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(JSON.stringify(json));
        });
      },
    );
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
