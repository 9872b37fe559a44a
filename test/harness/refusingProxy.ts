import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback proxy in front of a real key service that refuses the requests `refuses` picks
 * (500 with the API's error body, the target never sees them) and passes every other one on
 * as it is. It records each request's method, path and Keydesk-* headers.
 */

export interface SeenRequest {
  method: string;
  path: string;
  client: string | undefined;
  action: string | undefined;
  refused: boolean;
}

export interface RefusingProxy {
  url: string;
  /** Which requests to refuse (none by default); may be changed at any time. */
  refuses: (method: string, path: string) => boolean;
  seen: SeenRequest[];
  close(): Promise<void>;
}

const REFUSAL = JSON.stringify({
  requestError: { serviceException: { messageId: "GENERAL_ERROR", text: "the proxy refused this request" } },
});

export async function startRefusingProxy(target: string): Promise<RefusingProxy> {
  const proxy: RefusingProxy = { url: "", refuses: () => false, seen: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const refused = proxy.refuses(method, path);
    proxy.seen.push({
      method,
      path,
      client: req.headers["keydesk-client"] as string | undefined,
      action: req.headers["keydesk-action"] as string | undefined,
      refused,
    });
    if (refused) {
      req.resume();
      res.writeHead(500, { "content-type": "application/json" }).end(REFUSAL);
      return;
    }
    const upstream = http.request(`${target}${path}`, { method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
