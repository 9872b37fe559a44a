import { createConnection, createServer, type Socket } from "node:net";

/**
 * A loopback TCP proxy whose connections can go silent: `silence()` stops passing bytes on every
 * connection open now, in both directions, and closes none (as a dead route or a firewall that
 * forgot the connection would). Connections made later pass bytes as usual. `slowDown(ms)` holds
 * every answer (bytes from the target) that long from then on, as a slow link would.
 */
export interface SilentProxy {
  port: number;
  /** Connections the proxy took so far. */
  readonly connections: number;
  silence(): void;
  slowDown(ms: number): void;
  close(): Promise<void>;
}

export async function startSilentProxy(targetHost: string, targetPort: number): Promise<SilentProxy> {
  const open = new Set<{ client: Socket; target: Socket; silent: boolean }>();
  let connections = 0;
  let delayMs = 0;
  const server = createServer((client) => {
    connections++;
    const target = createConnection({ host: targetHost, port: targetPort });
    const pair = { client, target, silent: false };
    open.add(pair);
    client.on("data", (bytes) => {
      if (!pair.silent) target.write(bytes);
    });
    target.on("data", (bytes) => {
      if (pair.silent) return;
      // The same delay for every chunk keeps them in order.
      if (delayMs > 0) setTimeout(() => client.writable && client.write(bytes), delayMs);
      else client.write(bytes);
    });
    const end = () => {
      open.delete(pair);
      client.destroy();
      target.destroy();
    };
    for (const socket of [client, target]) {
      socket.on("error", end);
      socket.on("close", () => {
        if (!pair.silent) end();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    get connections() {
      return connections;
    },
    silence() {
      for (const pair of open) pair.silent = true;
    },
    slowDown(ms) {
      delayMs = ms;
    },
    close() {
      for (const { client, target } of open) {
        client.destroy();
        target.destroy();
      }
      open.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
