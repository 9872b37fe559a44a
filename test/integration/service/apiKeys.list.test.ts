import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type ApiKey,
  assertApiError,
  assertValidationError,
  keyPath,
  keysPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** GET /settings/1/accounts/_/api-keys: creation order, ?enabled=, ?name=, ?publicApiKey=. */

let service: Service;
const OWNER = "owner";
const OTHER = "other";
/** The owner's keys in creation order. */
const created: ApiKey[] = [];
let otherKey: ApiKey;

const NAMES = ["alpha", "beta gamma", "delta", "beta gamma", "a b", "a+b", "Ünïcode 名前 🔑", "Alpha"];

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: OTHER, password: "other-secret-1" },
  ]);
  for (const name of NAMES) created.push(await service.createKey(OWNER, { name }));
  // Disable "delta" and the second "beta gamma".
  for (const index of [2, 3]) {
    const key = created[index] as ApiKey;
    const res = await service.call({
      method: "PUT",
      path: keyPath(key.key),
      authorization: service.auth(OWNER),
      body: { enabled: false },
    });
    assert.equal(res.status, 200, res.text);
    created[index] = res.json as ApiKey;
  }
  otherKey = await service.createKey(OTHER, { name: "alpha" });
});
after(async () => {
  await service?.close();
});

const list = (query: string) => service.listKeys(OWNER, query);
const keysOf = (keys: ApiKey[]) => keys.map((key) => key.key);
const createdNamed = (name: string) => created.filter((key) => key.name === name);

describe("listing", () => {
  test("lists every key of the account, as full objects, in creation order", async () => {
    assert.deepEqual(await list(""), created);
  });

  test("a list whole in one piece is one body with its Content-Length, the same bytes list after list", async () => {
    // Each list's pieces go back to the list worker once written: a piece lent again before its
    // bytes were written would show here as a changed or cut body.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        service.call({ path: keysPath(), authorization: service.auth(OWNER) }),
      ),
    );
    const [first] = answers as [(typeof answers)[number]];
    assert.deepEqual((first.json as { apiKeys: ApiKey[] }).apiKeys, created);
    for (const res of answers) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers["content-length"], String(Buffer.byteLength(res.text)));
      assert.equal(res.headers["transfer-encoding"], undefined);
      assert.equal(res.text, first.text);
    }
  });

  test("does not list keys of another account", async () => {
    const keys = await list("");
    assert.ok(!keysOf(keys).includes(otherKey.key));
    assert.deepEqual(await service.listKeys(OTHER, ""), [otherKey]);
  });

  test("?enabled=true lists only enabled keys, ?enabled=false only disabled ones, each in creation order", async () => {
    const enabled = await list("?enabled=true");
    assert.deepEqual(
      enabled,
      created.filter((key) => key.enabled),
    );
    assert.equal(enabled.length, NAMES.length - 2);
    const disabled = await list("?enabled=false");
    assert.deepEqual(keysOf(disabled), [created[2]?.key, created[3]?.key]);
    assert.ok(disabled.every((key) => key.enabled === false));
  });

  test("a key appears in the list with the fields it was created with", async () => {
    const key = await service.createKey(OWNER, {
      name: "listed with fields",
      allowedIPs: ["10.1.2.3/16"],
      permissions: ["TFA"],
      validFrom: "2026-01-01T00:00:00.000+0100",
    });
    const [listed] = await list("?name=listed+with+fields");
    assert.deepEqual(listed, key);
    assert.deepEqual(listed?.allowedIPs, ["10.1.0.0/16"]);
    assert.equal(listed?.validFrom, "2025-12-31T23:00:00.000+0000");
  });
});

describe("?name= lookup", () => {
  test("matches the exact name; `+` stands for a space; names are not unique, so every match is listed", async () => {
    assert.deepEqual(await list("?name=beta+gamma"), createdNamed("beta gamma"));
    assert.equal(createdNamed("beta gamma").length, 2);
    assert.deepEqual(await list("?name=beta%20gamma"), createdNamed("beta gamma"));
  });

  test("a URL-encoded `+` (%2B) is a literal plus, distinct from a space", async () => {
    assert.deepEqual(await list("?name=a%2Bb"), createdNamed("a+b"));
    assert.deepEqual(await list("?name=a+b"), createdNamed("a b"));
  });

  test("URL-encoded UTF-8 names match", async () => {
    const name = "Ünïcode 名前 🔑";
    assert.deepEqual(await list(`?name=${encodeURIComponent(name)}`), createdNamed(name));
    assert.equal(createdNamed(name).length, 1);
  });

  test("there is no prefix, substring or case-insensitive matching", async () => {
    assert.deepEqual(await list("?name=alp"), []);
    assert.deepEqual(await list("?name=beta"), []);
    assert.deepEqual(await list("?name=alpha"), createdNamed("alpha"));
    assert.deepEqual(await list("?name=Alpha"), createdNamed("Alpha"));
    assert.deepEqual(await list("?name=ALPHA"), []);
  });

  test("an unknown name answers an empty list", async () => {
    assert.deepEqual(await list("?name=no+such+key"), []);
  });
});

describe("?publicApiKey= lookup", () => {
  test("finds the one key with that publicApiKey, in the list shape", async () => {
    for (const key of [created[0], created[3], created[6]] as ApiKey[]) {
      assert.deepEqual(await list(`?publicApiKey=${encodeURIComponent(key.publicApiKey)}`), [key]);
    }
  });

  test('an unknown publicApiKey answers {"apiKeys":[]}', async () => {
    const unknown = `${"0".repeat(32)}-00000000-0000-4000-8000-000000000000`;
    const res = await service.call({
      path: `${keysPath()}?publicApiKey=${unknown}`,
      authorization: service.auth(OWNER),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { apiKeys: [] });
    assert.deepEqual(await list("?publicApiKey=garbage"), []);
    assert.deepEqual(await list("?publicApiKey="), []);
  });

  test("the publicApiKey of another account's key is not found", async () => {
    assert.deepEqual(await list(`?publicApiKey=${otherKey.publicApiKey}`), []);
    assert.deepEqual(await service.listKeys(OTHER, `?publicApiKey=${otherKey.publicApiKey}`), [otherKey]);
  });
});

describe("combined filters", () => {
  test("every filter given must match", async () => {
    const enabledBeta = createdNamed("beta gamma").filter((key) => key.enabled);
    const disabledBeta = createdNamed("beta gamma").filter((key) => !key.enabled);
    assert.equal(enabledBeta.length, 1);
    assert.equal(disabledBeta.length, 1);
    assert.deepEqual(await list("?name=beta+gamma&enabled=true"), enabledBeta);
    assert.deepEqual(await list("?enabled=false&name=beta+gamma"), disabledBeta);
    assert.deepEqual(await list("?name=delta&enabled=true"), []);

    const delta = created[2] as ApiKey;
    const pk = delta.publicApiKey;
    assert.deepEqual(await list(`?publicApiKey=${pk}&enabled=false`), [delta]);
    assert.deepEqual(await list(`?publicApiKey=${pk}&enabled=true`), []);
    assert.deepEqual(await list(`?publicApiKey=${pk}&name=delta`), [delta]);
    assert.deepEqual(await list(`?publicApiKey=${pk}&name=alpha`), []);
  });
});

describe("bad queries", () => {
  const bad: [string, string][] = [
    ["?enabled=yes", "enabled"],
    ["?enabled=TRUE", "enabled"],
    ["?enabled=1", "enabled"],
    ["?enabled=", "enabled"],
    ["?enabled=true&enabled=false", "enabled"],
    ["?name=a&name=b", "name"],
    ["?limit=0", "limit"],
    ["?limit=10001", "limit"],
    ["?limit=ten", "limit"],
    ["?limit=1&limit=2", "limit"],
    ["?cursor=", "cursor"],
    ["?cursor=not-a-cursor", "cursor"],
    ["?limit=5&cursor=azIuMTI", "cursor"],
    ["?limit=5&cursor=azEuLTE", "cursor"],
    ["?permission=all", "permission"],
    ["?nameContains=a&nameContains=b", "nameContains"],
    ["?page=2", "page"],
    ["?Enabled=true", "Enabled"],
  ];
  for (const [query, field] of bad) {
    test(`${query} is a 400 naming ${field}`, async () => {
      const res = await service.call({ path: `${keysPath()}${query}`, authorization: service.auth(OWNER) });
      assertValidationError(res, field);
    });
  }

  test("an account the caller does not manage is a 404 even when the query is also bad", async () => {
    const res = await service.call({
      path: `${keysPath("0123456789ABCDEF0123456789ABCDEF")}?enabled=yes`,
      authorization: service.auth(OWNER),
    });
    assertApiError(res, 404, "NOT_FOUND");
  });
});
