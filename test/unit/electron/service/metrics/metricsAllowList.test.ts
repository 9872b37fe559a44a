import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DEFAULT_METRICS_ALLOW,
  metricsAllowList,
} from "../../../../../electron/service/metrics/metricsAllowList.ts";

test("by default only loopback may read the metrics, IPv4 (all of 127/8) and IPv6", () => {
  const allow = metricsAllowList(DEFAULT_METRICS_ALLOW);
  for (const address of ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"])
    assert.ok(allow.allows(address), address);
  for (const address of ["10.0.0.1", "192.168.1.1", "::2", "fe80::1", "0.0.0.0", "not an address"])
    assert.ok(!allow.allows(address), address);
});

test("addresses and ranges, comma-separated or given apart, are normalized and matched", () => {
  const allow = metricsAllowList(["10.1.2.3/8, 2001:DB8::/32", "192.168.0.7", "10.0.0.0/8"]);
  assert.deepEqual(allow.entries, ["10.0.0.0/8", "2001:db8::/32", "192.168.0.7"]);
  for (const address of ["10.200.0.1", "2001:db8:1::5", "192.168.0.7", "::ffff:10.0.0.9"])
    assert.ok(allow.allows(address), address);
  for (const address of ["11.0.0.1", "2001:db9::1", "192.168.0.8", "127.0.0.1"])
    assert.ok(!allow.allows(address), address);
});

test("anything that is not an address or a range is refused, naming it", () => {
  for (const value of [
    "localhost",
    "127.1",
    "10.0.0.0/33",
    "::1/129",
    "1.2.3.4,",
    "1.2.3.4,,5.6.7.8",
    "fe80::1%eth0",
    "*",
  ]) {
    assert.throws(
      () => metricsAllowList([value]),
      (error: Error) => /is not an IP address or CIDR range/.test(error.message),
      value,
    );
  }
  assert.throws(() => metricsAllowList(["localhost"]), /"localhost"/);
});

test("an empty list is refused: it would shut the metrics to everyone, which --metrics does not mean", () => {
  for (const given of [[], [""], [" "]])
    assert.throws(() => metricsAllowList(given), /at least one address/, JSON.stringify(given));
});
