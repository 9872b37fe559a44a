import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import {
  apiKeyJson,
  fieldsAfterUpdate,
  fieldsForCreate,
  type ListedKey,
  type StoredApiKey,
  toApiKeyDto,
  validationErrorsOf,
} from "../../../../../electron/service/domain/apiKeyRecords.ts";
import {
  createApiKeyRequestSchema,
  type Permission,
  updateApiKeyRequestSchema,
} from "../../../../../shared/apiKeys.ts";

const stored: StoredApiKey = {
  id: 1,
  key: "0123456789ABCDEF0123456789ABCDEF",
  publicApiKey: "0123456789abcdef0123456789abcdef-01234567-89ab-4def-8123-456789abcdef",
  accountId: 7,
  accountKey: "FEDCBA9876543210FEDCBA9876543210",
  name: "billing",
  allowedIPs: ["10.0.0.0/8"],
  permissions: ["ALL"],
  validFrom: Date.UTC(2026, 0, 1),
  validTo: Date.UTC(2027, 0, 1),
  enabled: true,
  createdAt: null,
};

function create(body: unknown) {
  const parsed = createApiKeyRequestSchema.parse(body);
  return fieldsForCreate(parsed);
}

function update(body: unknown) {
  return fieldsAfterUpdate(stored, updateApiKeyRequestSchema.parse(body));
}

test("a create with only a name gets ALL, enabled, and no restrictions", () => {
  assert.deepEqual(create({ name: "  app  " }), {
    ok: true,
    value: {
      name: "app",
      allowedIPs: null,
      permissions: ["ALL"],
      validFrom: null,
      validTo: null,
      enabled: true,
    },
  });
});

test("a create normalizes and de-duplicates IP entries and permissions; an empty list means no restriction", () => {
  const result = create({
    name: "x",
    allowedIPs: ["10.0.0.1/8", "10.9.9.9/8", "::FFFF:1.2.3.4"],
    permissions: ["TFA", "ALL", "TFA"],
  });
  assert.ok(result.ok);
  assert.deepEqual(result.value.allowedIPs, ["10.0.0.0/8", "1.2.3.4"]);
  assert.deepEqual(result.value.permissions, ["ALL", "TFA"]);
  const unrestricted = create({ name: "x", allowedIPs: [] });
  assert.ok(unrestricted.ok);
  assert.equal(unrestricted.value.allowedIPs, null);
});

test("validTo must come after validFrom", () => {
  const result = create({
    name: "x",
    validFrom: "2026-01-01T00:00:00.000Z",
    validTo: "2026-01-01T01:00:00.000+0100",
  });
  assert.deepEqual(result, {
    ok: false,
    errors: { validTo: ["must be after validFrom (2026-01-01T00:00:00.000+0000)"] },
  });
});

test("an update replaces sent fields and keeps absent ones", () => {
  const result = update({ name: "renamed", enabled: false });
  assert.ok(result.ok);
  assert.deepEqual(result.value, {
    name: "renamed",
    allowedIPs: stored.allowedIPs,
    permissions: stored.permissions,
    validFrom: stored.validFrom,
    validTo: stored.validTo,
    enabled: false,
  });
});

test("null clears allowedIPs, validFrom and validTo", () => {
  const result = update({ allowedIPs: null, validFrom: null, validTo: null });
  assert.ok(result.ok);
  assert.equal(result.value.allowedIPs, null);
  assert.equal(result.value.validFrom, null);
  assert.equal(result.value.validTo, null);
});

test("an update is checked against the stored validity window", () => {
  const result = update({ validTo: "2025-06-01T00:00:00.000Z" });
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.errors.validTo);
});

test("service-assigned fields may be repeated unchanged but not changed", () => {
  assert.ok(update({ key: stored.key, publicApiKey: stored.publicApiKey, accountKey: stored.accountKey }).ok);
  const result = update({ key: "X", publicApiKey: "Y", accountKey: stored.accountKey });
  assert.equal(result.ok, false);
  assert.deepEqual(Object.keys(!result.ok ? result.errors : {}).sort(), ["key", "publicApiKey"]);
});

test("schema issues become per-field messages; unknown fields are named one by one", () => {
  const parsed = createApiKeyRequestSchema.safeParse({ name: "", permissions: "ALL", colour: 1, size: 2 });
  assert.equal(parsed.success, false);
  const errors = validationErrorsOf(parsed.error?.issues ?? []);
  assert.deepEqual(errors.name, ["must not be blank"]);
  assert.equal(errors.permissions?.length, 1);
  assert.deepEqual(errors.colour, ["is not a known field"]);
  assert.deepEqual(errors.size, ["is not a known field"]);
});

test("a key is shown with UTC datetimes and without unset optional fields", () => {
  assert.deepEqual(toApiKeyDto(stored), {
    name: "billing",
    key: stored.key,
    publicApiKey: stored.publicApiKey,
    accountKey: stored.accountKey,
    allowedIPs: ["10.0.0.0/8"],
    permissions: ["ALL"],
    validFrom: "2026-01-01T00:00:00.000+0000",
    validTo: "2027-01-01T00:00:00.000+0000",
    enabled: true,
  });
  const bare = toApiKeyDto({ ...stored, allowedIPs: null, validFrom: null, validTo: null });
  assert.deepEqual(Object.keys(bare), [
    "name",
    "key",
    "publicApiKey",
    "accountKey",
    "permissions",
    "enabled",
  ]);
});

test("a listed key's JSON text is exactly the answer's JSON of the same key, whatever its fields", () => {
  const ip = fc.oneof(
    fc.ipV4(),
    fc.ipV4().map((address) => `${address}/32`),
    fc.constant("2001:db8::/32"),
  );
  const time = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31) });
  fc.assert(
    fc.property(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }),
        publicApiKey: fc.string({ minLength: 1, maxLength: 80 }),
        allowedIPs: fc.option(fc.uniqueArray(ip, { minLength: 1, maxLength: 4 }), { nil: null }),
        permissions: fc.constantFrom<Permission[]>(["ALL"], ["TFA"], ["ALL", "TFA"]),
        validFrom: fc.option(time, { nil: null }),
        validTo: fc.option(time, { nil: null }),
        enabled: fc.boolean(),
      }),
      (fields) => {
        const key = { ...stored, ...fields };
        const listed: ListedKey = {
          id: key.id,
          key: key.key,
          name: key.name,
          publicApiKey: key.publicApiKey,
          // As the store writes the columns.
          allowedIPsJson: key.allowedIPs === null ? null : JSON.stringify(key.allowedIPs),
          permissionsJson: JSON.stringify(key.permissions),
          validFrom: key.validFrom,
          validTo: key.validTo,
          enabled: key.enabled,
        };
        assert.equal(apiKeyJson(key.accountKey, listed), JSON.stringify(toApiKeyDto(key)));
      },
    ),
  );
});
