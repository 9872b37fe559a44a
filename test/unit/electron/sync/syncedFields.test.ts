import assert from "node:assert/strict";
import { test } from "node:test";
import {
  changedFields,
  createRequestOf,
  fieldsOfDto,
  updateRequestOf,
} from "../../../../electron/sync/syncedFields.ts";
import type { ApiKeyDto } from "../../../../shared/apiKeys.ts";

const dto: ApiKeyDto = {
  name: "app",
  key: "0123456789ABCDEF0123456789ABCDEF",
  publicApiKey: "secret",
  accountKey: "ABCDEF0123456789ABCDEF0123456789",
  permissions: ["TFA", "ALL"],
  allowedIPs: ["10.0.0.1/32", "::ffff:192.0.2.1"],
  validFrom: "2026-01-01T01:00:00.000+0100",
  enabled: true,
};

test("a remote's key is read in meaning: normalized IPs, permissions in order, instants", () => {
  const parsed = fieldsOfDto(dto);
  assert.ok(parsed.ok);
  assert.equal(parsed.fields.validFrom, Date.UTC(2026, 0, 1));
  assert.equal(parsed.fields.validTo, null);
  assert.deepEqual(parsed.fields.permissions, ["ALL", "TFA"]);
  const again = fieldsOfDto({
    ...dto,
    validFrom: "2026-01-01T00:00:00.000+0000",
    permissions: ["ALL", "TFA"],
  });
  assert.ok(again.ok);
  assert.deepEqual(changedFields(parsed.fields, again.fields), [], "other spellings of the same values");
});

test("a remote key that cannot be stored here is refused with the reason", () => {
  const badDate = fieldsOfDto({ ...dto, validTo: "tomorrow" });
  assert.deepEqual(badDate, { ok: false, reason: 'its validTo "tomorrow" is not a datetime' });
  assert.equal(fieldsOfDto({ ...dto, allowedIPs: ["not-an-ip"] }).ok, false);
  assert.equal(fieldsOfDto({ ...dto, permissions: [] }).ok, false);
});

test("requests carry the API's shapes: create without enabled, update with null to clear", () => {
  const parsed = fieldsOfDto(dto);
  assert.ok(parsed.ok);
  const create = createRequestOf(parsed.fields);
  assert.equal("enabled" in create, false);
  assert.equal(create.validFrom, "2026-01-01T00:00:00.000+0000");
  assert.equal("validTo" in create, false);
  assert.deepEqual(updateRequestOf(parsed.fields, ["validTo", "enabled"]), { validTo: null, enabled: true });
});
