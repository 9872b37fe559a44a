import {
  DEFAULT_METRICS_ALLOW,
  type MetricsAllowList,
  metricsAllowList,
} from "../service/metrics/metricsAllowList.ts";
import { type CliOptions, UsageError } from "./cliArgs.ts";

/**
 * serve's Prometheus metrics (docs/metrics.md): `--metrics` (else KEY_SERVICE_METRICS) turns
 * /metrics on, `--metrics-allow` (else KEY_SERVICE_METRICS_ALLOW) names who may read it. The allow
 * list is checked even while metrics are off: a typo there is found the day it is written, not
 * the day metrics are turned on.
 */
export const METRICS_SERVE_OPTIONS = {
  metrics: { type: "boolean" },
  "metrics-allow": { type: "string", multiple: true },
} satisfies CliOptions;

const ON = new Set(["1", "true", "on", "yes"]);
const OFF = new Set(["0", "false", "off", "no"]);

/** KEY_SERVICE_METRICS as a switch: empty counts as unset, anything but the usual words is refused. */
function metricsSwitch(value: string | undefined): boolean {
  if (!value) return false;
  const word = value.trim().toLowerCase();
  if (ON.has(word)) return true;
  if (OFF.has(word)) return false;
  throw new UsageError(
    `KEY_SERVICE_METRICS must be 1, true, on or yes (or 0, false, off, no), not "${value}"`,
  );
}

/** The metrics options of buildHttpApp, or undefined while metrics are off. */
export function metricsServeOptions(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  env: NodeJS.ProcessEnv,
): { allow: MetricsAllowList } | undefined {
  const flag = values["metrics-allow"] as string[] | undefined;
  const [source, given] = flag
    ? ["--metrics-allow", flag]
    : env.KEY_SERVICE_METRICS_ALLOW
      ? ["KEY_SERVICE_METRICS_ALLOW", [env.KEY_SERVICE_METRICS_ALLOW]]
      : [undefined, DEFAULT_METRICS_ALLOW];
  let allow: MetricsAllowList;
  try {
    allow = metricsAllowList(given);
  } catch (error) {
    throw new UsageError(`${source}: ${(error as Error).message}`);
  }
  const on = values.metrics === true || metricsSwitch(env.KEY_SERVICE_METRICS);
  return on ? { allow } : undefined;
}
