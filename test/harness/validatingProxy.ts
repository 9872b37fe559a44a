import http from "node:http";
import type { AddressInfo } from "node:net";
import { checkerFor } from "./serviceContract.ts";

/**
 * A loopback HTTP proxy in front of a key service, for clients whose requests the harness does
 * not make itself (the provider's SDK): every answer of a checked service (serviceContract.ts) is
 * held to its /openapi.json on the way back. A conforming answer is passed on as it came; one that
 * does not conform is replaced by a 502 naming what differs (so the client's test sees a failure),
 * and is kept in `problems`. Requests go on byte for byte, headers as sent (duplicates included).
 */

export interface ValidatingProxy {
  url: string;
  /** What did not conform, one entry per answer. */
  readonly problems: string[];
  close(): Promise<void>;
}

/** Headers of one connection, not of the message: the proxy's own connections set their own. */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "upgrade"];

/**
 * `rawHeaders` ([name, value, name, value, ...]) without the hop-by-hop ones (and any others named).
 * A request keeps its Transfer-Encoding, so its body goes on framed as it came.
 */
function endToEnd(rawHeaders: string[], alsoDrop: string[] = []): string[] {
  const drop = new Set([...HOP_BY_HOP, ...alsoDrop]);
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (!drop.has(name.toLowerCase())) kept.push(name, rawHeaders[i + 1] as string);
  }
  return kept;
}

export async function startValidatingProxy(target: () => string): Promise<ValidatingProxy> {
  const problems: string[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const server = http.createServer((req, res) => {
    const targetUrl = target();
    const checker = checkerFor(targetUrl);
    const { hostname, port } = new URL(targetUrl);
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const upstream = http.request(
      { host: hostname, port, method, path, headers: endToEnd(req.rawHeaders), agent },
      (answer) => {
        const status = answer.statusCode as number;
        // The answer is sent on whole or piped: this side frames it itself.
        const headers = endToEnd(answer.rawHeaders, ["transfer-encoding"]);
        const streaming = String(answer.headers["content-type"]).startsWith("text/event-stream");
        const refuse = (error: unknown) => {
          const problem = error instanceof Error ? error.message : String(error);
          problems.push(problem);
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ contractViolation: problem }));
          answer.destroy();
        };
        if (!checker) {
          res.writeHead(status, headers);
          answer.pipe(res);
          return;
        }
        if (streaming) {
          // An endless stream: its status and headers are checked, its events pass through.
          checker
            .then((conformance) => {
              conformance.assertConforms({ method, path, status, headers: answer.headers, text: "" });
              res.writeHead(status, headers);
              answer.pipe(res);
            })
            .catch(refuse);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("error", () => res.destroy());
        answer.on("end", () => {
          const body = Buffer.concat(chunks);
          checker
            .then((conformance) => {
              conformance.assertConforms({
                method,
                path,
                status,
                headers: answer.headers,
                text: body.toString("utf8"),
              });
              res.writeHead(status, headers);
              res.end(body);
            })
            .catch(refuse);
        });
      },
    );
    // No answer (the service stopped, the connection broke): the client sees its connection break too.
    upstream.on("error", () => res.destroy());
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    problems,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
