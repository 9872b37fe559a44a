import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { test } from "node:test";
import { MAX_UNSENT_BYTES, writeOrDisconnect } from "../../../electron/service/http/slowClient.ts";

/**
 * The bound both event streams (the service's PIN stream and the browser host's /bridge/events)
 * write through, over a real loopback socket whose client stops reading: the backlog held for it
 * stays under the bound, and the client is disconnected instead of buffered for.
 */

test("a client that stops reading is disconnected once its backlog passes the bound", async () => {
  const chunk = `data: ${"x".repeat(4090)}\n\n`;
  let written = 0;
  let maxBacklog = 0;
  const outcome = new Promise<{ refused: boolean }>((resolve) => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => {
        server.close();
        resolve({ refused: res.destroyed });
      });
      const pump = () => {
        if (!writeOrDisconnect(res, chunk)) return;
        written += chunk.length;
        maxBacklog = Math.max(maxBacklog, res.writableLength);
        // 256 MB without a disconnect: the bound is not working (and the test must still end).
        if (written < 256 * 1024 * 1024) setImmediate(pump);
        else res.destroy();
      };
      pump();
    });
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      const socket = net.connect({ host: "127.0.0.1", port }, () =>
        socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
      );
      socket.on("error", () => {});
      // Reads the head, then never again: the kernel's buffers fill, then Node's would.
      socket.once("data", () => socket.pause());
      socket.on("close", () => socket.destroy());
    });
  });
  const { refused } = await outcome;
  assert.ok(refused, "the response was not destroyed");
  assert.ok(written < 256 * 1024 * 1024, `${written} bytes were accepted for a client that does not read`);
  assert.ok(
    maxBacklog <= MAX_UNSENT_BYTES + chunk.length,
    `${maxBacklog} bytes waited for the client (bound ${MAX_UNSENT_BYTES})`,
  );
});
