import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { type Fields, sameValue } from "../../../../electron/sync/syncedFields.ts";
import { mergeKey } from "../../../../electron/sync/threeWayMerge.ts";
import { SYNCED_FIELDS } from "../../../../shared/sync.ts";

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

const arbitraryFields: fc.Arbitrary<Fields> = fc.record({
  name: fc.constantFrom("a", "b", "c"),
  allowedIPs: fc.constantFrom<string[] | null>(null, ["10.0.0.1"], ["192.0.2.0/24", "10.0.0.1"]),
  permissions: fc.constantFrom(["ALL"], ["TFA"], ["ALL", "TFA"]) as fc.Arbitrary<Fields["permissions"]>,
  validFrom: fc.constantFrom(null, 1_000, 3_000),
  validTo: fc.constantFrom(null, 2_000, 4_000),
  enabled: fc.boolean(),
});

test("property: a merge never loses a change, never touches a conflicted field, and never makes an empty window", () => {
  fc.assert(
    fc.property(arbitraryFields, arbitraryFields, arbitraryFields, (base, local, remote) => {
      const outcome = mergeKey(base, local, remote);
      for (const field of SYNCED_FIELDS) {
        const localChanged = !sameValue(field, local, base);
        const remoteChanged = !sameValue(field, remote, base);
        if (field in outcome.conflicts) {
          assert.ok(sameValue(field, outcome.local, local), `${field}: a conflict keeps the local value`);
          assert.ok(sameValue(field, outcome.base, base), `${field}: and the agreed one`);
        } else if (localChanged) {
          assert.ok(sameValue(field, outcome.local, local), `${field}: the local change is kept`);
        } else if (remoteChanged) {
          assert.ok(sameValue(field, outcome.local, remote), `${field}: the remote change is taken`);
        }
      }
      const { validFrom, validTo } = outcome.local;
      const windowWasValid =
        local.validFrom === null || local.validTo === null || local.validTo > local.validFrom;
      if (windowWasValid)
        assert.ok(validFrom === null || validTo === null || validTo > validFrom, "window stays valid");
    }),
    { numRuns: 2000 },
  );
});
