import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback HTTP proxy in front of a service that can lose answers: a request that matches
 * `dropAnswer` reaches the service and is carried out there, but the client's connection is
 * cut before the answer arrives — the "applied, answer lost" failure of real networks.
 */
export interface LossyProxy {
  url: string;
  /** Requests forwarded so far, as "METHOD path". */
  seen: string[];
  /** The `Keydesk-Client` header of each request forwarded, in the order of `seen`. */
  clients: Array<string | undefined>;
  dropAnswer: (method: string, path: string) => boolean;
  /**
   * A request that matches is cut before it reaches the service: the remote went away between
   * two calls (nothing of it is carried out).
   */
  cutBefore: (method: string, path: string) => boolean;
  /** Rewrites a JSON answer before it is passed on (a remote whose list lags behind, say). */
  rewrite: (method: string, path: string, json: unknown) => unknown;
  close(): Promise<void>;
}

export async function startLossyProxy(target: string): Promise<LossyProxy> {
  const targetUrl = new URL(target);
  const proxy: LossyProxy = {
    url: "",
    seen: [],
    clients: [],
    dropAnswer: () => false,
    cutBefore: () => false,
    rewrite: (_method, _path, json) => json,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    if (proxy.cutBefore(method, path)) {
      req.socket.destroy();
      return;
    }
    proxy.seen.push(`${method} ${path}`);
    const client = req.headers["keydesk-client"];
    proxy.clients.push(Array.isArray(client) ? client.join(",") : client);
    const drop = proxy.dropAnswer(method, path);
    const upstream = http.request(
      { host: targetUrl.hostname, port: targetUrl.port, method, path, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          if (drop) {
            req.socket.destroy();
            return;
          }
          let body = Buffer.concat(chunks);
          if (String(answer.headers["content-type"]).startsWith("application/json")) {
            body = Buffer.from(
              JSON.stringify(proxy.rewrite(method, path, JSON.parse(body.toString("utf8")))),
            );
          }
          const { "content-length": _length, ...headers } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = proxy.close;
  proxy.close = () => {
    server.closeAllConnections();
    return close();
  };
  return proxy;
}
