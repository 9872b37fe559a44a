import { AUDIT_RETENTION_RANGE, DEFAULT_AUDIT_RETENTION_DAYS } from "../service/audit/auditRetention.ts";
import {
  CONNECTION_LIMIT_RANGES,
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
} from "../service/http/connectionLimits.ts";
import { type RunningKeyService, startKeyService } from "../service/server.ts";
import { DEFAULT_START_CHECK_MAX_MB } from "../service/store/databaseHealth.ts";
import { attachSync } from "../sync/attachSync.ts";
import { parseBoundedInteger, parseOptions, parsePort, parseSwitch } from "./cliArgs.ts";
import { METRICS_SERVE_OPTIONS, metricsServeOptions } from "./metricsServeOptions.ts";
import { explainListenError, stopOnSignals } from "./processLifecycle.ts";
import { STORAGE_OPTIONS, storageOptionsOf } from "./storageArgs.ts";
import { SYNC_SERVE_OPTIONS, syncServeOptions } from "./syncServeOptions.ts";

export async function serveCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const values = parseOptions(args, {
    host: { type: "string" },
    port: { type: "string" },
    ...STORAGE_OPTIONS,
    "log-level": { type: "string" },
    "trusted-proxy": { type: "string", multiple: true },
    "request-timeout": { type: "string" },
    "max-connections": { type: "string" },
    usage: { type: "string" },
    "start-check-max-mb": { type: "string" },
    "audit-retention": { type: "string" },
    ...SYNC_SERVE_OPTIONS,
    ...METRICS_SERVE_OPTIONS,
  });
  const connectionLimits: ConnectionLimits = {
    requestTimeoutSeconds: parseBoundedInteger(
      { name: "--request-timeout", value: values["request-timeout"] as string | undefined },
      { name: "KEY_SERVICE_REQUEST_TIMEOUT", value: env.KEY_SERVICE_REQUEST_TIMEOUT },
      CONNECTION_LIMIT_RANGES.requestTimeoutSeconds,
      DEFAULT_CONNECTION_LIMITS.requestTimeoutSeconds,
    ),
    maxConnections: parseBoundedInteger(
      { name: "--max-connections", value: values["max-connections"] as string | undefined },
      { name: "KEY_SERVICE_MAX_CONNECTIONS", value: env.KEY_SERVICE_MAX_CONNECTIONS },
      CONNECTION_LIMIT_RANGES.maxConnections,
      DEFAULT_CONNECTION_LIMITS.maxConnections,
    ),
  };
  const auditRetentionDays = parseBoundedInteger(
    { name: "--audit-retention", value: values["audit-retention"] as string | undefined },
    { name: "KEY_SERVICE_AUDIT_RETENTION", value: env.KEY_SERVICE_AUDIT_RETENTION },
    AUDIT_RETENTION_RANGE,
    DEFAULT_AUDIT_RETENTION_DAYS,
  );
  const host = (values.host as string | undefined) ?? "127.0.0.1";
  const port = parsePort(values.port as string | undefined, 8787);
  const sync = syncServeOptions(values, env);
  const storage = storageOptionsOf(values, env);
  const metricsAllow = metricsServeOptions(values, env);
  // prom-client takes about 0.1 s to load: a service without metrics never loads it.
  const metrics = metricsAllow && {
    ...metricsAllow,
    collector: new (await import("../service/metrics/serviceMetrics.ts")).ServiceMetrics(),
  };
  let service: RunningKeyService;
  try {
    service = await startKeyService({
      host,
      port,
      ...storage,
      logLevel: (values["log-level"] as string | undefined) ?? env.KEY_SERVICE_LOG_LEVEL ?? "info",
      trustedProxies: (values["trusted-proxy"] as string[] | undefined) ?? [],
      connectionLimits,
      recordUsage: parseSwitch(
        { name: "--usage", value: values.usage as string | undefined },
        { name: "KEY_SERVICE_USAGE", value: env.KEY_SERVICE_USAGE },
        true,
      ),
      auditRetentionDays,
      extensions: [(service) => void attachSync(service, sync)],
      ...(metrics && { metrics }),
      startCheckMaxMb: parseBoundedInteger(
        { name: "--start-check-max-mb", value: values["start-check-max-mb"] as string | undefined },
        { name: "KEY_SERVICE_START_CHECK_MAX_MB", value: env.KEY_SERVICE_START_CHECK_MAX_MB },
        { min: 0, max: 1024 * 1024 },
        DEFAULT_START_CHECK_MAX_MB,
      ),
    });
  } catch (error) {
    throw new Error(explainListenError(error as NodeJS.ErrnoException, host, port));
  }
  stopOnSignals("key-service", () => service.close());
  // Printed last: whoever waits for this line may signal the process as soon as it reads it.
  process.stdout.write(`key-service listening on ${service.url}\n`);
}
