import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyFormValues } from "../../../../../renderer/src/features/keys/KeyForm.tsx";
import { changedFields, orderedPermissions } from "../../../../../renderer/src/features/keys/keyEdits.ts";

const initial: KeyFormValues = {
  name: "billing",
  permissions: ["ALL", "TFA"],
  allowedIPs: [{ id: 1, value: "10.0.0.1" }],
  validFrom: null,
  validTo: "2027-01-01 00:00:00",
  enabled: true,
};

test("an edit sends only the fields the admin changed: a rename keeps both permissions untouched", () => {
  assert.deepEqual(changedFields(initial, { ...initial, name: "billing v2" }), { name: "billing v2" });
  assert.deepEqual(changedFields(initial, { ...initial }), {});
  assert.deepEqual(
    changedFields(initial, {
      ...initial,
      allowedIPs: [
        { id: 7, value: " 10.0.0.1 " },
        { id: 8, value: "" },
      ],
    }),
    {},
    "the same addresses, trimmed, with an empty entry",
  );
});

test("permissions are compared and sent as a set in the service's order; the other fields when changed", () => {
  assert.deepEqual(changedFields(initial, { ...initial, permissions: ["TFA", "ALL"] }), {});
  assert.deepEqual(changedFields(initial, { ...initial, permissions: ["TFA"] }), { permissions: ["TFA"] });
  const changed = changedFields(initial, {
    ...initial,
    allowedIPs: [],
    validTo: null,
    enabled: false,
  });
  assert.deepEqual(changed, { allowedIPs: [], validTo: null, enabled: false });
  assert.deepEqual(orderedPermissions(["TFA", "ALL"]), ["ALL", "TFA"]);
});
