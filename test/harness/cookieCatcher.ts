import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Another local server on another port of 127.0.0.1, as any program on the machine may run: it
 * records the cookies the browser sends it. Browsers send cookies for 127.0.0.1 to every port, so
 * it receives the browser host's cookie too.
 */
export interface CookieCatcher {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** Every cookie received so far, in the order received. */
  cookies(): Array<{ name: string; value: string }>;
  close(): Promise<void>;
}

function parseCookies(req: IncomingMessage): Array<{ name: string; value: string }> {
  return (req.headers.cookie ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.indexOf("=") > 0)
    .map((part) => ({ name: part.slice(0, part.indexOf("=")), value: part.slice(part.indexOf("=") + 1) }));
}

export async function startCookieCatcher(): Promise<CookieCatcher> {
  const received: Array<{ name: string; value: string }> = [];
  const server = createServer((req, res) => {
    received.push(...parseCookies(req));
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>another local server</title><p>another local server</p>");
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    cookies: () => [...received],
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
