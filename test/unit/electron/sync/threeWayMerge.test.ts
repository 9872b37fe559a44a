import assert from "node:assert/strict";
import { test } from "node:test";
import type { Fields } from "../../../../electron/sync/syncedFields.ts";
import { mergeKey } from "../../../../electron/sync/threeWayMerge.ts";

const base: Fields = {
  name: "checkout",
  allowedIPs: ["10.0.0.0/8"],
  permissions: ["ALL"],
  validFrom: null,
  validTo: null,
  enabled: true,
};

test("a field only the remote changed is taken locally and becomes the agreed state", () => {
  const outcome = mergeKey(base, base, { ...base, name: "checkout-v2" });
  assert.equal(outcome.local.name, "checkout-v2");
  assert.equal(outcome.base.name, "checkout-v2");
  assert.deepEqual(outcome.taken, ["name"]);
  assert.deepEqual(outcome.conflicts, {});
});

test("a field only this side changed stays as it is, to be pushed", () => {
  const local = { ...base, enabled: false };
  const outcome = mergeKey(base, local, base);
  assert.deepEqual(outcome.local, local);
  assert.deepEqual(outcome.base, base);
  assert.deepEqual(outcome.taken, []);
});

test("changes to different fields on both sides merge", () => {
  const outcome = mergeKey(base, { ...base, enabled: false }, { ...base, name: "renamed" });
  assert.deepEqual(outcome.local, { ...base, enabled: false, name: "renamed" });
  assert.deepEqual(outcome.base, { ...base, name: "renamed" });
  assert.deepEqual(outcome.conflicts, {});
});

test("the same field changed differently on both sides is a conflict and touches nothing", () => {
  const local = { ...base, name: "mine" };
  const outcome = mergeKey(base, local, { ...base, name: "theirs" });
  assert.deepEqual(outcome.conflicts, { name: "theirs" });
  assert.deepEqual(outcome.local, local);
  assert.deepEqual(outcome.base, base);
});

test("the same field changed to the same value on both sides is agreed", () => {
  const outcome = mergeKey(base, { ...base, permissions: ["TFA"] }, { ...base, permissions: ["TFA"] });
  assert.deepEqual(outcome.agreed, ["permissions"]);
  assert.deepEqual(outcome.base.permissions, ["TFA"]);
  assert.deepEqual(outcome.conflicts, {});
});

test("allowedIPs in another order are the same restriction", () => {
  const before = { ...base, allowedIPs: ["10.0.0.0/8", "192.0.2.1"] };
  const outcome = mergeKey(before, before, { ...before, allowedIPs: ["192.0.2.1", "10.0.0.0/8"] });
  assert.deepEqual(outcome.taken, []);
});

test("one side's start and the other side's end that would make an empty window are both held as conflicts", () => {
  const local = { ...base, validFrom: Date.UTC(2027, 5, 1) };
  const remote = { ...base, validTo: Date.UTC(2027, 0, 1) };
  const outcome = mergeKey(base, local, remote);
  assert.deepEqual(outcome.local, local, "the local window is left as it was");
  assert.deepEqual(Object.keys(outcome.conflicts).sort(), ["validFrom", "validTo"]);
  assert.equal(outcome.conflicts.validTo, Date.UTC(2027, 0, 1));
  assert.equal(outcome.conflicts.validFrom, null);
});

test("window changes that still leave a valid window merge", () => {
  const local = { ...base, validFrom: Date.UTC(2027, 0, 1) };
  const remote = { ...base, validTo: Date.UTC(2027, 5, 1) };
  const outcome = mergeKey(base, local, remote);
  assert.equal(outcome.local.validFrom, Date.UTC(2027, 0, 1));
  assert.equal(outcome.local.validTo, Date.UTC(2027, 5, 1));
  assert.deepEqual(outcome.conflicts, {});
});
