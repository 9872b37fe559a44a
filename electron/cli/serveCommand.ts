import { type RunningKeyService, startKeyService } from "../service/server.ts";
import { parseOptions, parsePort, resolveDataDir } from "./cliArgs.ts";

export const SERVE_USAGE =
  "key-service serve [--host 127.0.0.1] [--port 8787] [--data-dir DIR] [--log-level info] [--trusted-proxy ADDR]...";

const FORCED_EXIT_AFTER_MS = 15_000;

function explainListenError(error: NodeJS.ErrnoException, host: string, port: number): string {
  if (error.code === "EADDRINUSE")
    return `port ${port} on ${host} is in use; choose another with --port (0 picks a free one)`;
  if (error.code === "EADDRNOTAVAIL") return `${host} is not an address of this machine; check --host`;
  if (error.code === "EACCES") return `not allowed to listen on ${host}:${port}; use a port above 1023`;
  return error.message;
}

export async function serveCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const values = parseOptions(args, {
    host: { type: "string" },
    port: { type: "string" },
    "data-dir": { type: "string" },
    "log-level": { type: "string" },
    "trusted-proxy": { type: "string", multiple: true },
  });
  const host = (values.host as string | undefined) ?? "127.0.0.1";
  const port = parsePort(values.port as string | undefined, 8787);
  let service: RunningKeyService;
  try {
    service = await startKeyService({
      host,
      port,
      dataDir: resolveDataDir(values["data-dir"] as string | undefined, env),
      dataKeyBase64: env.KEY_SERVICE_DATA_KEY,
      logLevel: (values["log-level"] as string | undefined) ?? env.KEY_SERVICE_LOG_LEVEL ?? "info",
      trustedProxies: (values["trusted-proxy"] as string[] | undefined) ?? [],
    });
  } catch (error) {
    throw new Error(explainListenError(error as NodeJS.ErrnoException, host, port));
  }
  const stop = () => {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    setTimeout(() => {
      process.stderr.write("key-service: requests still running after 15 s; exiting anyway\n");
      process.exit(1);
    }, FORCED_EXIT_AFTER_MS).unref();
    service.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: Error) => {
        process.stderr.write(`key-service: error while stopping: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // Printed last: whoever waits for this line may signal the process as soon as it reads it.
  process.stdout.write(`key-service listening on ${service.url}\n`);
}
