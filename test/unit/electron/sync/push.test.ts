import assert from "node:assert/strict";
import { test } from "node:test";
import { createFieldsOf, NOT_YET_VALID_FROM } from "../../../../electron/sync/push.ts";
import type { Fields } from "../../../../electron/sync/syncedFields.ts";

const key: Fields = {
  name: "gateway",
  allowedIPs: ["192.0.2.0/24"],
  permissions: ["ALL"],
  validFrom: Date.UTC(2026, 0, 1),
  validTo: Date.UTC(2031, 0, 1),
  enabled: true,
};

test("an enabled key is created as it is", () => {
  assert.deepEqual(createFieldsOf(key), key);
});

test("a disabled key is created with a window that never opens, its other fields as they are", () => {
  assert.deepEqual(createFieldsOf({ ...key, enabled: false }), {
    ...key,
    enabled: false,
    validFrom: NOT_YET_VALID_FROM,
    validTo: null,
  });
  assert.equal(new Date(NOT_YET_VALID_FROM).toISOString(), "9999-12-31T00:00:00.000Z");
});
