import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A remote that misbehaves the way a hostile or broken server can, answering every key list
 * (`GET .../api-keys`) in the chosen `mode`:
 * - `huge`: a 200 JSON key list streamed lazily (written only as the reader takes it) up to
 *   `hugeBytes`, then left unterminated;
 * - `declared`: headers announcing a 5 GB Content-Length, then a trickle of bytes;
 * - `hang`: never answers (headers never come);
 * - `trickle`: 200 headers at once, then one byte every 500 ms, never ending.
 * It counts what it managed to send, so a test can tell the reader stopped early.
 */

export type HostileMode = "huge" | "declared" | "hang" | "trickle";

export interface HostileRemote {
  url: string;
  mode: HostileMode;
  hugeBytes: number;
  /** Body bytes written to readers so far, over all requests. */
  bytesSent: number;
  /** Key-list requests received. */
  lists: number;
  close(): Promise<void>;
}

const KEY_ENTRY = JSON.stringify({
  name: "padding key to make the answer big",
  key: "0123456789ABCDEF0123456789ABCDEF",
  publicApiKey: "0123456789abcdef0123456789abcdef-00000000-0000-4000-8000-000000000000",
  accountKey: "FEDCBA9876543210FEDCBA9876543210",
  permissions: ["ALL"],
  enabled: true,
});

export async function startHostileRemote(mode: HostileMode): Promise<HostileRemote> {
  const timers = new Set<NodeJS.Timeout>();
  const remote: HostileRemote = {
    url: "",
    mode,
    hugeBytes: 300 * 1024 * 1024,
    bytesSent: 0,
    lists: 0,
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const trickle = (res: http.ServerResponse) => {
    const timer = setInterval(() => {
      res.write(" ");
      remote.bytesSent += 1;
    }, 500);
    timers.add(timer);
    res.on("close", () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  };
  const server = http.createServer((req, res) => {
    if (!/\/api-keys(\?|$)/.test(req.url ?? "")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ requestError: { serviceException: { messageId: "NOT_FOUND", text: "no" } } }));
      return;
    }
    remote.lists += 1;
    if (remote.mode === "hang") return;
    if (remote.mode === "trickle") {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      trickle(res);
      return;
    }
    if (remote.mode === "declared") {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(5 * 1024 ** 3) });
      res.flushHeaders();
      trickle(res);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.from(`${KEY_ENTRY},`.repeat(Math.ceil(65_536 / (KEY_ENTRY.length + 1))));
    let sent = 0;
    res.write('{"apiKeys":[');
    // Written only when the socket drained: a reader that stops reading stops the stream.
    const pump = () => {
      while (sent < remote.hugeBytes && !res.destroyed) {
        sent += chunk.length;
        remote.bytesSent += chunk.length;
        if (!res.write(chunk)) return;
      }
      if (!res.destroyed) res.end();
    };
    res.on("drain", pump);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  remote.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return remote;
}
