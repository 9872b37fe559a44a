import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { type DataDir, openDataDir } from "../../../../../electron/service/dataDir.ts";
import type { ApiKeyFields } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import { newKeyId, newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import {
  countKeys,
  readPage,
  STEP_KEYS,
  STEP_ROWS,
  scanKeys,
} from "../../../../../electron/service/store/sqliteKeyLister.ts";
import type { ApiKeyFilter } from "../../../../../electron/service/store/store.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { addStoredAccount } from "../../../../harness/tempDataDir.ts";

/** Reading many keys in steps: the same keys as one read would give, with the event loop turning between. */

let dir: string;
let data: DataDir;
let ownerId: number;
/** The other account's first key row. */
let otherRow: number;
/** Key ids of the owner in creation order, with the fields each was given. */
const owned: { id: number; fields: ApiKeyFields }[] = [];
// More rows than one step looks at, interleaved with another account's, so windows cross both.
const SIZE = STEP_ROWS * 2 + 321;

before(async () => {
  dir = await makeTempDir();
  data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const account = (username: string) => addStoredAccount(data, username);
  const owner = account("owner");
  const other = account("other");
  ownerId = owner.id;
  data.db.transaction(() => {
    for (let index = 0; index < SIZE; index++) {
      const fields: ApiKeyFields = {
        // A rare match (every 997th) for the name filter, in mixed case.
        name: index % 997 === 0 ? `Rare ÉTÉ ${index}` : `key ${index}`,
        allowedIPs: null,
        permissions: index % 3 === 0 ? ["TFA"] : ["ALL"],
        validFrom: null,
        validTo: null,
        enabled: index % 2 === 0,
      };
      const stored = data.apiKeys.insert(
        owner.id,
        owner.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        fields,
        index,
      );
      owned.push({ id: stored.id, fields });
      if (index % 4 === 0) {
        const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
        const theirs = data.apiKeys.insert(
          other.id,
          other.accountKey,
          identity,
          { ...fields, name: "Rare été other" },
          index,
        );
        otherRow ??= theirs.id;
      }
    }
  })();
});
after(async () => {
  data?.close();
  await removeDir(dir);
});

const expected = (predicate: (fields: ApiKeyFields) => boolean) =>
  owned.filter((each) => predicate(each.fields)).map((each) => each.id);

const filters: [string, ApiKeyFilter, (fields: ApiKeyFields) => boolean][] = [
  ["no filter", {}, () => true],
  ["enabled", { enabled: true }, (fields) => fields.enabled],
  [
    "a rare name substring, in another case",
    { nameContains: "rare été" },
    (fields) => fields.name.startsWith("Rare"),
  ],
  ["permission TFA", { permission: "TFA" }, (fields) => fields.permissions.includes("TFA")],
  [
    "every filter at once",
    { enabled: true, nameContains: "RARE", permission: "TFA" },
    (fields) => fields.enabled && fields.name.startsWith("Rare") && fields.permissions.includes("TFA"),
  ],
];

for (const [what, filter, predicate] of filters) {
  test(`${what}: the steps together are the account's matching keys in creation order, each step bounded`, async () => {
    const ids: number[] = [];
    for await (const step of scanKeys(data.apiKeys, ownerId, filter)) {
      assert.ok(step.keys.length > 0 && step.keys.length <= STEP_KEYS);
      ids.push(...step.keys.map((key) => key.id));
    }
    assert.deepEqual(ids, expected(predicate));
    const oneStep = data.apiKeys.scan(ownerId, filter, 0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(
      oneStep.keys.map((key) => key.id),
      expected(predicate),
    );
    assert.equal(oneStep.after, null);
  });

  test(`${what}: counted as many as match`, async () => {
    assert.equal(await countKeys(data.apiKeys, ownerId, filter), expected(predicate).length);
  });

  test(`${what}: pages of 100 after each other's last key are the same keys, and say when more follow`, async () => {
    const ids: number[] = [];
    let after = 0;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await readPage(data.apiKeys, ownerId, filter, after, 100);
      ids.push(...page.keys.map((key) => key.id));
      if (!page.more) break;
      assert.equal(page.keys.length, 100);
      after = page.keys.at(-1)?.id as number;
    }
    assert.deepEqual(ids, expected(predicate));
  });
}

test("a sorted page after another account's row, or a row that does not exist, ends the list", async () => {
  // The position is read in the listed account only: another's row gives its values away to nobody.
  for (const by of ["name", "state", "validTo"] as const) {
    for (const desc of [false, true]) {
      for (const after of [otherRow, 10 ** 9]) {
        const page = await readPage(data.apiKeys, ownerId, { sort: { by, desc } }, after, 10);
        assert.deepEqual(page, { keys: [], more: false }, `${by} ${desc ? "desc" : "asc"} after ${after}`);
      }
    }
  }
});

test("a timer due while a long list is read runs before the list ends: the read yields between steps", async () => {
  let steps = 0;
  let stepsWhenTimerRan: number | undefined;
  setImmediate(() => {
    stepsWhenTimerRan = steps;
  });
  for await (const _step of scanKeys(data.apiKeys, ownerId, {})) steps++;
  assert.ok(steps > 2, `${steps} steps`);
  assert.ok(
    stepsWhenTimerRan !== undefined && stepsWhenTimerRan < steps,
    `ran after ${stepsWhenTimerRan} of ${steps} steps`,
  );
});

test("a count yields between steps too", async () => {
  let ran = false;
  setImmediate(() => {
    ran = true;
  });
  const counting = countKeys(data.apiKeys, ownerId, { nameContains: "nowhere" });
  let ranBeforeEnd = false;
  await Promise.race([counting, new Promise((resolve) => setImmediate(resolve))]);
  ranBeforeEnd = ran;
  assert.equal(await counting, 0);
  assert.ok(ranBeforeEnd);
});

test("an aborted scan stops at its next step with the abort's reason", async () => {
  const controller = new AbortController();
  const steps = scanKeys(data.apiKeys, ownerId, {}, { signal: controller.signal });
  await steps.next();
  controller.abort(new Error("client went away"));
  await assert.rejects(steps.next(), /client went away/);
});
