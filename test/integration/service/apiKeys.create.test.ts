import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  API_DATETIME_PATTERN,
  assertApiError,
  assertOk,
  assertValidationError,
  KEY_PATTERN,
  keysPath,
  PUBLIC_API_KEY_PATTERN,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** POST /settings/1/accounts/_/api-keys against a real `serve` process. */

let service: Service;
const OWNER = "owner";

before(async () => {
  service = await startService([{ username: OWNER, password: "owner-secret-1" }]);
});
after(async () => {
  await service?.close();
});

const create = (body: unknown) =>
  service.call({ method: "POST", path: keysPath(), authorization: service.auth(OWNER), body });

describe("create with only a name", () => {
  test("answers exactly name, key, publicApiKey, accountKey, permissions [ALL] and enabled true", async () => {
    const key = assertOk<Record<string, unknown>>(await create({ name: "billing server" }));
    assert.deepEqual(Object.keys(key).sort(), [
      "accountKey",
      "enabled",
      "key",
      "name",
      "permissions",
      "publicApiKey",
    ]);
    assert.equal(key.name, "billing server");
    assert.match(key.key as string, KEY_PATTERN);
    assert.equal((key.publicApiKey as string).length, 69);
    assert.match(key.publicApiKey as string, PUBLIC_API_KEY_PATTERN);
    assert.equal(key.accountKey, service.accountKeys[OWNER]);
    assert.deepEqual(key.permissions, ["ALL"]);
    assert.equal(key.enabled, true);
  });

  test("the created key is stored: GET answers the same object", async () => {
    const created = assertOk<{ key: string }>(await create({ name: "stored" }));
    assert.deepEqual(await service.getKey(OWNER, created.key), created);
  });

  test("every key gets its own key and publicApiKey", async () => {
    const a = assertOk<{ key: string; publicApiKey: string }>(await create({ name: "same" }));
    const b = assertOk<{ key: string; publicApiKey: string }>(await create({ name: "same" }));
    assert.notEqual(a.key, b.key);
    assert.notEqual(a.publicApiKey, b.publicApiKey);
  });

  test("the name is trimmed", async () => {
    const key = assertOk<{ name: string }>(await create({ name: "   padded name \u00a0 " }));
    assert.equal(key.name, "padded name");
  });

  test("a name of 255 characters is accepted, counted in code points (255 emoji)", async () => {
    const ascii = "n".repeat(255);
    assert.equal(assertOk<{ name: string }>(await create({ name: ascii })).name, ascii);
    const emoji = "🔑".repeat(255);
    assert.equal(emoji.length, 510);
    assert.equal(assertOk<{ name: string }>(await create({ name: emoji })).name, emoji);
    const padded = `  ${"p".repeat(255)}  `;
    assert.equal(assertOk<{ name: string }>(await create({ name: padded })).name, "p".repeat(255));
  });
});

describe("create with every field", () => {
  test("stores and answers every field, in the documented shape", async () => {
    const key = assertOk<Record<string, unknown>>(
      await create({
        name: "full",
        allowedIPs: ["192.168.1.10", "10.0.0.0/8"],
        permissions: ["TFA"],
        validFrom: "2026-03-01T12:00:00.000+0000",
        validTo: "2027-03-01T12:00:00.000+0000",
      }),
    );
    assert.deepEqual(Object.keys(key).sort(), [
      "accountKey",
      "allowedIPs",
      "enabled",
      "key",
      "name",
      "permissions",
      "publicApiKey",
      "validFrom",
      "validTo",
    ]);
    assert.deepEqual(key.allowedIPs, ["192.168.1.10", "10.0.0.0/8"]);
    assert.deepEqual(key.permissions, ["TFA"]);
    assert.equal(key.validFrom, "2026-03-01T12:00:00.000+0000");
    assert.equal(key.validTo, "2027-03-01T12:00:00.000+0000");
    assert.equal(key.enabled, true);
    assert.deepEqual(await service.getKey(OWNER, key.key as string), key);
  });

  test("allowedIPs are normalized: CIDR to its network, IPv4-mapped to IPv4, IPv6 compressed lower-case, duplicates removed", async () => {
    const key = assertOk<{ allowedIPs: string[] }>(
      await create({
        name: "ips",
        allowedIPs: [
          "10.0.0.1/8",
          "::ffff:1.2.3.4",
          "2001:0DB8:0000:0000:0000:0000:0000:0001",
          "10.0.0.0/8",
          "1.2.3.4",
          "2001:db8::1",
          "FE80::ABCD/64",
          "192.168.0.7/32",
        ],
      }),
    );
    assert.deepEqual(key.allowedIPs, ["10.0.0.0/8", "1.2.3.4", "2001:db8::1", "fe80::/64", "192.168.0.7"]);
  });

  test("allowedIPs [] or null means no restriction, and the field is omitted", async () => {
    for (const allowedIPs of [[], null]) {
      const key = assertOk<Record<string, unknown>>(await create({ name: "open", allowedIPs }));
      assert.equal("allowedIPs" in key, false, JSON.stringify(key));
      assert.equal("allowedIPs" in (await service.getKey(OWNER, key.key as string)), false);
    }
  });

  test("permissions [TFA], [ALL, TFA] and duplicated entries are stored once each", async () => {
    assert.deepEqual(
      assertOk<{ permissions: string[] }>(await create({ name: "t", permissions: ["TFA"] })).permissions,
      ["TFA"],
    );
    assert.deepEqual(
      assertOk<{ permissions: string[] }>(await create({ name: "t", permissions: ["ALL", "ALL"] }))
        .permissions,
      ["ALL"],
    );
    const both = assertOk<{ permissions: string[] }>(
      await create({ name: "t", permissions: ["TFA", "ALL", "TFA", "ALL"] }),
    ).permissions;
    assert.deepEqual([...both].sort(), ["ALL", "TFA"]);
  });

  test("datetimes with +0100, -05:30, +hh:mm and Z offsets are answered in UTC as ...+0000", async () => {
    const cases: [string, string][] = [
      ["2026-03-01T12:00:00.000+0100", "2026-03-01T11:00:00.000+0000"],
      ["2026-03-01T12:00:00.000-05:30", "2026-03-01T17:30:00.000+0000"],
      ["2026-03-01T12:00:00.123Z", "2026-03-01T12:00:00.123+0000"],
      ["2026-03-01T00:30:00.000+02:00", "2026-02-28T22:30:00.000+0000"],
      ["2028-02-29T23:59:59.999-0100", "2028-03-01T00:59:59.999+0000"],
    ];
    for (const [input, utc] of cases) {
      const key = assertOk<{ validFrom: string; validTo: string; key: string }>(
        await create({ name: "dates", validFrom: input, validTo: "9999-01-01T00:00:00.000Z" }),
      );
      assert.equal(key.validFrom, utc, input);
      assert.match(key.validTo, API_DATETIME_PATTERN);
      const until = assertOk<{ validTo: string }>(await create({ name: "dates", validTo: input }));
      assert.equal(until.validTo, utc, input);
      assert.equal((await service.getKey(OWNER, key.key)).validFrom, utc);
    }
  });

  test("datetimes as common clients write them (no fraction, 1 to 9 digits) are answered to the millisecond", async () => {
    const cases: [string, string][] = [
      ["2030-06-01T00:00:00Z", "2030-06-01T00:00:00.000+0000"],
      ["2030-06-01T00:00:00+02:00", "2030-05-31T22:00:00.000+0000"],
      ["2030-06-01T00:00:00+0200", "2030-05-31T22:00:00.000+0000"],
      ["2030-06-01T00:00:00.5Z", "2030-06-01T00:00:00.500+0000"],
      ["2030-06-01T00:00:00.123456+00:00", "2030-06-01T00:00:00.123+0000"],
      ["2030-06-01T00:00:00.0005Z", "2030-06-01T00:00:00.001+0000"],
      ["2030-12-31T23:59:59.999999999Z", "2031-01-01T00:00:00.000+0000"],
    ];
    for (const [input, utc] of cases) {
      const key = assertOk<{ validFrom: string; key: string }>(
        await create({ name: "client", validFrom: input }),
      );
      assert.equal(key.validFrom, utc, input);
      assert.equal((await service.getKey(OWNER, key.key)).validFrom, utc, input);
    }
    const refused = assertValidationError(
      await create({ name: "x", validFrom: "2030-06-01T00:00Z" }),
      "validFrom",
    );
    assert.match(refused.join(" "), /yyyy-MM-ddTHH:mm:ss\.SSS\+hhmm.*fraction optional.*Z/);
  });

  test("only validFrom or only validTo may be set; the other stays absent", async () => {
    const from = assertOk<Record<string, unknown>>(
      await create({ name: "from", validFrom: "2026-01-01T00:00:00.000Z" }),
    );
    assert.equal(from.validFrom, "2026-01-01T00:00:00.000+0000");
    assert.equal("validTo" in from, false);
    const to = assertOk<Record<string, unknown>>(
      await create({ name: "to", validTo: "2026-01-01T00:00:00.000Z" }),
    );
    assert.equal(to.validTo, "2026-01-01T00:00:00.000+0000");
    assert.equal("validFrom" in to, false);
  });
});

describe("create validation", () => {
  /** [what is wrong, body, field expected in validationErrors] */
  const invalid: [string, unknown, string][] = [
    ["blank name", { name: "   " }, "name"],
    ["empty name", { name: "" }, "name"],
    ["name of 256 characters", { name: "n".repeat(256) }, "name"],
    ["name of 256 emoji", { name: "🔑".repeat(256) }, "name"],
    ["name with a line break", { name: "two\nlines" }, "name"],
    ["missing name", { permissions: ["ALL"] }, "name"],
    ["null name", { name: null }, "name"],
    ["name as a number", { name: 42 }, "name"],
    ["name as an array", { name: ["a"] }, "name"],
    ["unknown field", { name: "x", color: "red" }, "color"],
    ["enabled is not a create field", { name: "x", enabled: false }, "enabled"],
    ["key is assigned by the service", { name: "x", key: "0123456789ABCDEF0123456789ABCDEF" }, "key"],
    ["permissions []", { name: "x", permissions: [] }, "permissions"],
    ['permissions ["X"]', { name: "x", permissions: ["X"] }, "permissions"],
    ['permissions ["all"]', { name: "x", permissions: ["all"] }, "permissions"],
    ["permissions as a string", { name: "x", permissions: "ALL" }, "permissions"],
    ["permissions null", { name: "x", permissions: null }, "permissions"],
    ["allowedIPs as a string", { name: "x", allowedIPs: "10.0.0.1" }, "allowedIPs"],
    ["allowedIPs with a number", { name: "x", allowedIPs: [10] }, "allowedIPs"],
    ["allowedIPs octet over 255", { name: "x", allowedIPs: ["300.1.1.1"] }, "allowedIPs"],
    ["allowedIPs IPv4 prefix over 32", { name: "x", allowedIPs: ["10.0.0.0/33"] }, "allowedIPs"],
    ["allowedIPs IPv6 prefix over 128", { name: "x", allowedIPs: ["::1/129"] }, "allowedIPs"],
    ["allowedIPs empty prefix", { name: "x", allowedIPs: ["10.0.0.0/"] }, "allowedIPs"],
    ["allowedIPs negative prefix", { name: "x", allowedIPs: ["10.0.0.0/-1"] }, "allowedIPs"],
    ["allowedIPs hostname", { name: "x", allowedIPs: ["localhost"] }, "allowedIPs"],
    ["allowedIPs empty entry", { name: "x", allowedIPs: [""] }, "allowedIPs"],
    ["allowedIPs short IPv4 form", { name: "x", allowedIPs: ["127.1"] }, "allowedIPs"],
    ["allowedIPs zoned IPv6", { name: "x", allowedIPs: ["fe80::1%eth0"] }, "allowedIPs"],
    ["allowedIPs valid then invalid", { name: "x", allowedIPs: ["10.0.0.1", "10.0.0.256"] }, "allowedIPs"],
    ["validFrom without seconds", { name: "x", validFrom: "2026-01-01T00:00+0000" }, "validFrom"],
    [
      "validFrom with 10 fraction digits",
      { name: "x", validFrom: "2026-01-01T00:00:00.1234567890Z" },
      "validFrom",
    ],
    ["validFrom rounding up past 9999", { name: "x", validFrom: "9999-12-31T23:59:59.9995Z" }, "validFrom"],
    ["validFrom with an hours-only offset", { name: "x", validFrom: "2026-01-01T00:00:00+01" }, "validFrom"],
    ["validFrom month 13", { name: "x", validFrom: "2026-13-01T00:00:00.000+0000" }, "validFrom"],
    ["validFrom Feb 30", { name: "x", validFrom: "2026-02-30T00:00:00.000+0000" }, "validFrom"],
    ["validFrom Feb 29 of a common year", { name: "x", validFrom: "2027-02-29T00:00:00.000Z" }, "validFrom"],
    ["validFrom hour 24", { name: "x", validFrom: "2026-01-01T24:00:00.000Z" }, "validFrom"],
    ["validFrom offset +2500", { name: "x", validFrom: "2026-01-01T00:00:00.000+2500" }, "validFrom"],
    ["validFrom without offset", { name: "x", validFrom: "2026-01-01T00:00:00.000" }, "validFrom"],
    ["validFrom date only", { name: "x", validFrom: "2026-01-01" }, "validFrom"],
    ["validFrom as epoch number", { name: "x", validFrom: 1767225600000 }, "validFrom"],
    ["validTo month 13", { name: "x", validTo: "2026-13-01T00:00:00.000+0000" }, "validTo"],
    ["validTo offset +2500", { name: "x", validTo: "2026-01-01T00:00:00.000+2500" }, "validTo"],
    [
      "validTo before validFrom",
      { name: "x", validFrom: "2026-06-01T00:00:00.000Z", validTo: "2026-05-31T23:59:59.999Z" },
      "validTo",
    ],
    [
      "validTo equal to validFrom (written with other offsets)",
      { name: "x", validFrom: "2026-06-01T10:00:00.000+0100", validTo: "2026-06-01T09:00:00.000Z" },
      "validTo",
    ],
    ["array body", [], "body"],
    ["string body", "x", "body"],
    ["null body", null, "body"],
    ["number body", 42, "body"],
  ];

  for (const [what, body, field] of invalid) {
    test(`400 with validationErrors.${field} for ${what}, and no key is created`, async () => {
      const before = await service.listKeys(OWNER);
      assertValidationError(await create(body), field);
      assert.deepEqual(await service.listKeys(OWNER), before);
    });
  }

  test("a POST without any body is a 400", async () => {
    const res = await service.call({ method: "POST", path: keysPath(), authorization: service.auth(OWNER) });
    assertApiError(res, 400, "BAD_REQUEST");
  });

  test("every problem of a request is reported at once, each under its field", async () => {
    const exception = assertApiError(
      await create({ name: "", permissions: ["X"], allowedIPs: ["nope"], validFrom: "soon", extra: 1 }),
      400,
      "BAD_REQUEST",
    );
    assert.deepEqual(Object.keys(exception.validationErrors ?? {}).sort(), [
      "allowedIPs",
      "extra",
      "name",
      "permissions",
      "validFrom",
    ]);
  });
});
