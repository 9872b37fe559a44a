import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "../../../../electron/cli/cliArgs.ts";
import { metricsServeOptions } from "../../../../electron/cli/metricsServeOptions.ts";

test("off unless --metrics or KEY_SERVICE_METRICS turns it on", () => {
  assert.equal(metricsServeOptions({}, {}), undefined);
  assert.equal(metricsServeOptions({}, { KEY_SERVICE_METRICS: "" }), undefined);
  for (const off of ["0", "false", "off", "no", "OFF"])
    assert.equal(metricsServeOptions({}, { KEY_SERVICE_METRICS: off }), undefined, off);
  for (const on of ["1", "true", "on", "yes", "TRUE", " 1 "])
    assert.ok(metricsServeOptions({}, { KEY_SERVICE_METRICS: on }), on);
  assert.ok(metricsServeOptions({ metrics: true }, {}));
  assert.ok(metricsServeOptions({ metrics: true }, { KEY_SERVICE_METRICS: "0" }), "the flag wins");
});

test("KEY_SERVICE_METRICS other than a yes or a no is a usage error, not silently off", () => {
  for (const value of ["2", "enabled", "y"])
    assert.throws(
      () => metricsServeOptions({}, { KEY_SERVICE_METRICS: value }),
      (error: Error) => error instanceof UsageError && error.message.includes(`"${value}"`),
      value,
    );
});

test("the allow list: loopback by default, else the flags, else KEY_SERVICE_METRICS_ALLOW", () => {
  const entries = (values: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    metricsServeOptions({ metrics: true, ...values } as never, env)?.allow.entries;
  assert.deepEqual(entries({}), ["127.0.0.0/8", "::1"]);
  assert.deepEqual(entries({}, { KEY_SERVICE_METRICS_ALLOW: "10.0.0.0/8, ::1" }), ["10.0.0.0/8", "::1"]);
  assert.deepEqual(
    entries(
      { "metrics-allow": ["192.168.1.5", "10.1.0.0/16,2001:db8::/32"] },
      { KEY_SERVICE_METRICS_ALLOW: "::1" },
    ),
    ["192.168.1.5", "10.1.0.0/16", "2001:db8::/32"],
  );
});

test("an invalid allow list stops the start, naming where it came from, even while metrics are off", () => {
  const refused = (values: Record<string, unknown>, env: NodeJS.ProcessEnv, source: string) =>
    assert.throws(
      () => metricsServeOptions(values as never, env),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.startsWith(`${source}: `) &&
        !error.message.includes("\n"),
    );
  refused({ metrics: true, "metrics-allow": ["10.0.0.0/8", "intranet"] }, {}, "--metrics-allow");
  refused({ "metrics-allow": ["300.1.1.1"] }, {}, "--metrics-allow");
  refused({ metrics: true, "metrics-allow": [""] }, {}, "--metrics-allow");
  refused({}, { KEY_SERVICE_METRICS_ALLOW: "10.0.0.0/40" }, "KEY_SERVICE_METRICS_ALLOW");
});
