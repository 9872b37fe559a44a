import { type RunningKeyService, startKeyService } from "../service/server.ts";
import { parseOptions, parsePort, resolveDataDir } from "./cliArgs.ts";
import { explainListenError, stopOnSignals } from "./processLifecycle.ts";

export const SERVE_USAGE =
  "key-service serve [--host 127.0.0.1] [--port 8787] [--data-dir DIR] [--log-level info] [--trusted-proxy ADDR]...";

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
  stopOnSignals("key-service", () => service.close());
  // Printed last: whoever waits for this line may signal the process as soon as it reads it.
  process.stdout.write(`key-service listening on ${service.url}\n`);
}
