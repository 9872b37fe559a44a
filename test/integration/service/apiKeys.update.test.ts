import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  assertValidationError,
  keyPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** PUT /settings/1/accounts/_/api-keys/{key}: sent fields replace, absent fields are kept, null clears. */

let service: Service;
const OWNER = "owner";

before(async () => {
  service = await startService([{ username: OWNER, password: "owner-secret-1" }]);
});
after(async () => {
  await service?.close();
});

const FULL = {
  name: "full key",
  allowedIPs: ["10.0.0.0/8", "2001:db8::/32"],
  permissions: ["ALL"],
  validFrom: "2026-01-01T00:00:00.000+0000",
  validTo: "2027-01-01T00:00:00.000+0000",
};

/** A fresh key with every field set, so each test starts from a known state. */
const freshKey = () => service.createKey(OWNER, FULL);

const put = (key: string, body: unknown) =>
  service.call({ method: "PUT", path: keyPath(key), authorization: service.auth(OWNER), body });

/** PUT that must succeed; also checks that a GET afterwards answers the same object. */
async function update(key: string, body: unknown): Promise<ApiKey> {
  const updated = assertOk<ApiKey>(await put(key, body));
  assert.deepEqual(await service.getKey(OWNER, key), updated, "GET after PUT differs from the PUT answer");
  return updated;
}

/** The key object with some fields replaced (undefined removes a field), in the service's field order. */
function withFields(key: ApiKey, changes: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...key, ...changes };
  const order = [
    "name",
    "key",
    "publicApiKey",
    "accountKey",
    "allowedIPs",
    "permissions",
    "validFrom",
    "validTo",
    "enabled",
  ];
  return Object.fromEntries(order.filter((field) => merged[field] !== undefined).map((f) => [f, merged[f]]));
}

describe("each field replaced alone, the others kept", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["name", { name: "  renamed key  " }, { name: "renamed key" }],
    [
      "allowedIPs",
      { allowedIPs: ["192.168.1.1/24", "::FFFF:8.8.8.8"] },
      { allowedIPs: ["192.168.1.0/24", "8.8.8.8"] },
    ],
    ["permissions", { permissions: ["TFA"] }, { permissions: ["TFA"] }],
    [
      "validFrom",
      { validFrom: "2026-06-01T12:00:00.000+0200" },
      { validFrom: "2026-06-01T10:00:00.000+0000" },
    ],
    ["validTo", { validTo: "2028-02-29T23:00:00.000-01:00" }, { validTo: "2028-03-01T00:00:00.000+0000" }],
    ["enabled", { enabled: false }, { enabled: false }],
  ];
  for (const [field, body, expected] of cases) {
    test(`${field}`, async () => {
      const before = await freshKey();
      const after = await update(before.key, body);
      assert.deepEqual(after, withFields(before, expected));
    });
  }

  test("every field at once", async () => {
    const before = await freshKey();
    const after = await update(before.key, {
      name: "all new",
      allowedIPs: ["127.0.0.1"],
      permissions: ["TFA", "ALL"],
      validFrom: "2030-01-01T00:00:00.000Z",
      validTo: "2031-01-01T00:00:00.000Z",
      enabled: false,
    });
    assert.deepEqual(
      { ...after, permissions: [...after.permissions].sort() },
      withFields(before, {
        name: "all new",
        allowedIPs: ["127.0.0.1"],
        permissions: ["ALL", "TFA"],
        validFrom: "2030-01-01T00:00:00.000+0000",
        validTo: "2031-01-01T00:00:00.000+0000",
        enabled: false,
      }),
    );
  });
});

describe("clearing", () => {
  for (const field of ["allowedIPs", "validFrom", "validTo"]) {
    test(`null clears ${field}: the field is omitted afterwards, the others are kept`, async () => {
      const before = await freshKey();
      const after = await update(before.key, { [field]: null });
      assert.equal(field in after, false, JSON.stringify(after));
      assert.deepEqual(after, withFields(before, { [field]: undefined }));
    });
  }

  test("allowedIPs [] also clears the restriction", async () => {
    const before = await freshKey();
    const after = await update(before.key, { allowedIPs: [] });
    assert.deepEqual(after, withFields(before, { allowedIPs: undefined }));
  });

  test("validFrom and validTo can be set again after being cleared", async () => {
    const before = await freshKey();
    await update(before.key, { validFrom: null, validTo: null, allowedIPs: null });
    const after = await update(before.key, { validFrom: FULL.validFrom, validTo: FULL.validTo });
    assert.deepEqual(after, withFields(before, { allowedIPs: undefined }));
  });

  test("name null is a 400: a name cannot be cleared", async () => {
    const before = await freshKey();
    assertValidationError(await put(before.key, { name: null }), "name");
    assert.deepEqual(await service.getKey(OWNER, before.key), before);
  });

  test("permissions null is a 400", async () => {
    const before = await freshKey();
    assertValidationError(await put(before.key, { permissions: null }), "permissions");
    assert.deepEqual(await service.getKey(OWNER, before.key), before);
  });
});

describe("enabled", () => {
  test("false disables the key and true enables it again; the list filter follows", async () => {
    const key = await freshKey();
    assert.equal((await update(key.key, { enabled: false })).enabled, false);
    const disabled = await service.listKeys(OWNER, "?enabled=false");
    assert.ok(disabled.some((k) => k.key === key.key));
    assert.equal((await update(key.key, { enabled: true })).enabled, true);
    const enabled = await service.listKeys(OWNER, "?enabled=true");
    assert.ok(enabled.some((k) => k.key === key.key));
    assert.ok(!(await service.listKeys(OWNER, "?enabled=false")).some((k) => k.key === key.key));
  });

  test("enabled must be a boolean", async () => {
    const before = await freshKey();
    for (const enabled of ["false", 0, null]) {
      assertValidationError(await put(before.key, { enabled }), "enabled");
    }
    assert.deepEqual(await service.getKey(OWNER, before.key), before);
  });
});

describe("validity window", () => {
  test("a validTo before the stored validFrom is a 400", async () => {
    const before = await freshKey();
    assertValidationError(await put(before.key, { validTo: "2025-12-31T23:59:59.999Z" }), "validTo");
    assertValidationError(await put(before.key, { validTo: "2026-01-01T01:00:00.000+0100" }), "validTo");
    assert.deepEqual(await service.getKey(OWNER, before.key), before);
  });

  test("a validFrom after the stored validTo is a 400", async () => {
    const before = await freshKey();
    assertValidationError(await put(before.key, { validFrom: "2027-06-01T00:00:00.000Z" }), "validTo");
    assert.deepEqual(await service.getKey(OWNER, before.key), before);
  });

  test("moving both bounds together past the stored ones is fine", async () => {
    const before = await freshKey();
    const after = await update(before.key, {
      validFrom: "2040-01-01T00:00:00.000Z",
      validTo: "2041-01-01T00:00:00.000Z",
    });
    assert.equal(after.validFrom, "2040-01-01T00:00:00.000+0000");
    assert.equal(after.validTo, "2041-01-01T00:00:00.000+0000");
  });

  test("clearing validFrom lets validTo move before the old validFrom", async () => {
    const before = await freshKey();
    const after = await update(before.key, { validFrom: null, validTo: "2025-01-01T00:00:00.000Z" });
    assert.deepEqual(
      after,
      withFields(before, { validFrom: undefined, validTo: "2025-01-01T00:00:00.000+0000" }),
    );
  });
});

describe("service-assigned fields", () => {
  test("key, publicApiKey and accountKey may be sent unchanged (the GET answer can be PUT back)", async () => {
    const before = await freshKey();
    assert.deepEqual(await update(before.key, before), before);
    const { key, publicApiKey, accountKey } = before;
    assert.deepEqual(await update(before.key, { key, publicApiKey, accountKey, name: "same ids" }), {
      ...withFields(before, { name: "same ids" }),
    });
  });

  const other = {
    key: "0123456789ABCDEF0123456789ABCDEF",
    publicApiKey: `${"a".repeat(32)}-00000000-0000-4000-8000-000000000000`,
    accountKey: "FEDCBA9876543210FEDCBA9876543210",
  };
  const flipCase = (value: string) =>
    value === value.toUpperCase() ? value.toLowerCase() : value.toUpperCase();
  for (const field of ["key", "publicApiKey", "accountKey"] as const) {
    test(`a different ${field} is a 400 and nothing changes`, async () => {
      const before = await freshKey();
      assertValidationError(await put(before.key, { name: "must not stick", [field]: other[field] }), field);
      assertValidationError(await put(before.key, { [field]: flipCase(before[field]) }), field);
      assertValidationError(await put(before.key, { [field]: 42 }), field);
      assert.deepEqual(await service.getKey(OWNER, before.key), before);
    });
  }
});

describe("rejected updates leave the key unchanged", () => {
  const bad: [string, unknown, string][] = [
    ["blank name", { name: " " }, "name"],
    ["name of 256 characters", { name: "x".repeat(256) }, "name"],
    ["name as a number", { name: 7 }, "name"],
    ["permissions []", { permissions: [] }, "permissions"],
    ['permissions ["X"]', { permissions: ["X"] }, "permissions"],
    ["an invalid IP among valid ones", { allowedIPs: ["10.0.0.1", "10.0.0.300"] }, "allowedIPs"],
    ["allowedIPs as a string", { allowedIPs: "10.0.0.1" }, "allowedIPs"],
    ["validFrom without seconds", { validFrom: "2026-01-01T00:00Z" }, "validFrom"],
    ["validTo Feb 30", { validTo: "2027-02-30T00:00:00.000Z" }, "validTo"],
    ["unknown field", { name: "ok", colour: "blue" }, "colour"],
    ["array body", [], "body"],
    ["string body", "x", "body"],
    ["null body", null, "body"],
  ];
  for (const [what, body, field] of bad) {
    test(`${what}: 400 naming ${field}, and a GET after equals the GET before`, async () => {
      const before = await freshKey();
      assertValidationError(await put(before.key, body), field);
      assert.deepEqual(await service.getKey(OWNER, before.key), before);
    });
  }

  test("a valid field next to an invalid one is not applied either", async () => {
    const before = await freshKey();
    assertValidationError(
      await put(before.key, { enabled: false, name: "new", validTo: "never" }),
      "validTo",
    );
    assert.deepEqual(await service.getKey(OWNER, before.key), before);
  });
});

describe("no-ops and unknown keys", () => {
  test("{} changes nothing and answers the key as it was", async () => {
    const before = await freshKey();
    assert.deepEqual(await update(before.key, {}), before);
  });

  test("a PUT on an unknown key is a 404", async () => {
    assertApiError(await put("0123456789ABCDEF0123456789ABCDEF", { name: "x" }), 404, "NOT_FOUND");
    assertApiError(await put("not-a-key", { name: "x" }), 404, "NOT_FOUND");
  });

  test("updating one key does not touch the others", async () => {
    const a = await freshKey();
    const b = await freshKey();
    await update(a.key, { name: "only a", enabled: false, allowedIPs: null });
    assert.deepEqual(await service.getKey(OWNER, b.key), b);
  });
});

describe("durability", () => {
  test("an update is in the SQLite file: a restarted service answers the updated key", async () => {
    const before = await freshKey();
    const updated = await update(before.key, { name: "survives restart", validTo: null, enabled: false });
    const oldPid = service.serve.child.pid;
    await service.restart();
    assert.notEqual(service.serve.child.pid, oldPid);
    const res = await service.call({ path: keyPath(before.key), authorization: service.auth(OWNER) });
    assert.deepEqual(assertOk(res), updated);
  });
});
