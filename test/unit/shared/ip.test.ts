import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { isAddressAllowed, normalizeIpEntry } from "../../../shared/ip.ts";

test("normalizes addresses and ranges to one canonical form", () => {
  const cases: [string, string][] = [
    ["192.168.1.10", "192.168.1.10"],
    [" 10.0.0.1 ", "10.0.0.1"],
    ["10.0.0.1/8", "10.0.0.0/8"],
    ["10.1.2.3/32", "10.1.2.3"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8::1/48", "2001:db8::/48"],
    ["::1/128", "::1"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:10.1.2.3/120", "10.1.2.0/24"],
  ];
  for (const [input, expected] of cases) assert.equal(normalizeIpEntry(input), expected, input);
});

test("rejects what is not a plain address or CIDR range", () => {
  for (const input of [
    "",
    "localhost",
    "127.1",
    "0x7f.0.0.1",
    "010.0.0.1/8x",
    "1.2.3.4/33",
    "1.2.3.4/-1",
    "1.2.3.4/",
    "2001:db8::1/129",
    "fe80::1%eth0",
    "1.2.3.256",
    "1.2.3.4/8/8",
    "::ffff:1.2.3.4/95x",
  ]) {
    assert.equal(normalizeIpEntry(input), null, input);
  }
});

test("normalizing is idempotent for every valid IPv4 range", () => {
  fc.assert(
    fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), (address, prefix) => {
      const once = normalizeIpEntry(`${address}/${prefix}`);
      assert.notEqual(once, null);
      assert.equal(normalizeIpEntry(once as string), once);
      assert.ok(isAddressAllowed(address, [once as string]), `${address} inside ${once}`);
    }),
  );
});

test("normalizing is idempotent for every valid IPv6 range", () => {
  fc.assert(
    fc.property(fc.ipV6(), fc.integer({ min: 0, max: 128 }), (address, prefix) => {
      const once = normalizeIpEntry(`${address}/${prefix}`);
      assert.notEqual(once, null);
      assert.equal(normalizeIpEntry(once as string), once);
    }),
  );
});

test("matches client addresses against ranges, IPv4-mapped IPv6 as IPv4", () => {
  const entries = ["10.1.2.0/24", "2001:db8::/32", "192.0.2.7"];
  assert.ok(isAddressAllowed("10.1.2.99", entries));
  assert.ok(isAddressAllowed("::ffff:10.1.2.99", entries));
  assert.ok(isAddressAllowed("2001:db8:ffff::1", entries));
  assert.ok(isAddressAllowed("192.0.2.7", entries));
  assert.ok(!isAddressAllowed("10.1.3.1", entries));
  assert.ok(!isAddressAllowed("192.0.2.8", entries));
  assert.ok(!isAddressAllowed("2001:db9::1", entries));
  assert.ok(!isAddressAllowed("not-an-address", entries));
});
