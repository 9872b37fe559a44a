import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { startKeyService } from "../../../electron/service/server.ts";
import {
  type ApiResponse,
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  SQLITE_ONLY,
} from "../../harness/keyServiceProcess.ts";
import { openApiConformance } from "../../harness/openApiConformance.ts";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  assertValidationError,
  keysPath,
  PUBLIC_API_KEY_PATTERN,
  type Service,
  startService,
} from "./serviceFixture.ts";

/**
 * `Idempotency-Key` on the two creates: a retry with the same key and the same request answers
 * the first answer again and creates nothing; the same key with another request is a 409.
 */

const OWNER = "owner";
const SUB = "sub";
const OTHER = "other";
const KEYS_PATH = "/settings/1/accounts/{accountKey}/api-keys";
const TFA_PATH = "/2fa/{version}/api-key";
const DAY_MS = 24 * 60 * 60 * 1000;

let service: Service;
let conformance: ReturnType<typeof openApiConformance>;

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: SUB, password: "sub-secret-1", parent: OWNER },
    { username: OTHER, password: "other-secret-1" },
  ]);
  conformance = openApiConformance(assertOk(await service.call({ path: "/openapi.json" })));
});
after(async () => {
  await service?.close();
});

const createWith = (
  idempotencyKey: string | undefined,
  body: unknown,
  options: { username?: string; accountKey?: string } = {},
) =>
  service.call({
    method: "POST",
    path: keysPath(options.accountKey),
    authorization: service.auth(options.username ?? OWNER),
    body,
    ...(idempotencyKey !== undefined && { headers: { "idempotency-key": idempotencyKey } }),
  });

const tfaWith = (idempotencyKey: string, options: { version?: string; body?: unknown } = {}) =>
  service.call({
    method: "POST",
    path: `/2fa/${options.version ?? "2"}/api-key`,
    authorization: service.auth(OWNER),
    headers: { "idempotency-key": idempotencyKey, "content-type": "application/json" },
    ...(options.body !== undefined && { body: options.body }),
  });

/** Keys with this name in the account (names are unique per test). */
const named = async (name: string, username = OWNER) =>
  service.listKeys(username, `?name=${encodeURIComponent(name)}`);

function assertSameAnswer(first: ApiResponse, again: ApiResponse): void {
  assert.equal(again.status, first.status, again.text);
  assert.equal(again.text, first.text);
  assert.match(String(again.headers["content-type"]), /^application\/json\b/);
}

function assertConflict(res: ApiResponse): void {
  const exception = assertApiError(res, 409, "CONFLICT");
  assert.match(exception.text, /Idempotency-Key/);
  assert.match(exception.text, /already used for a different request/);
  assert.match(exception.text, /new Idempotency-Key/);
  assert.equal(exception.validationErrors, undefined);
}

describe("creating a key with an Idempotency-Key", () => {
  test("the same key and body twice: the identical answer, one key", async () => {
    const key = randomUUID();
    const name = `once ${key}`;
    const first = await createWith(key, { name, permissions: ["ALL"] });
    const created = assertOk<ApiKey>(first);
    assert.match(created.publicApiKey, PUBLIC_API_KEY_PATTERN);
    const again = await createWith(key, { name, permissions: ["ALL"] });
    assertSameAnswer(first, again);
    assert.deepEqual(again.json, created);
    conformance.assertResponse("POST", KEYS_PATH, again);
    const listed = await named(name);
    assert.equal(listed.length, 1, JSON.stringify(listed));
    assert.deepEqual(listed[0], created);
  });

  test("the body's key order and `_` against the own accountKey do not make another request", async () => {
    const key = randomUUID();
    const name = `canonical ${key}`;
    const first = await createWith(key, { name, permissions: ["TFA"], allowedIPs: ["10.0.0.1"] });
    assertOk(first);
    const reordered = await createWith(key, { allowedIPs: ["10.0.0.1"], permissions: ["TFA"], name });
    assertSameAnswer(first, reordered);
    const byAccountKey = await createWith(
      key,
      { name, permissions: ["TFA"], allowedIPs: ["10.0.0.1"] },
      { accountKey: service.accountKeys[OWNER] },
    );
    assertSameAnswer(first, byAccountKey);
    assert.equal((await named(name)).length, 1);
  });

  test("without the header every create makes a new key (unchanged)", async () => {
    const name = `plain ${randomUUID()}`;
    const a = assertOk<ApiKey>(await createWith(undefined, { name }));
    const b = assertOk<ApiKey>(await createWith(undefined, { name }));
    assert.notEqual(a.key, b.key);
    assert.equal((await named(name)).length, 2);
  });

  test("the same key with another body, path or endpoint is a 409 CONFLICT and creates nothing", async () => {
    const key = randomUUID();
    const name = `first ${key}`;
    const first = await createWith(key, { name });
    const created = assertOk<ApiKey>(first);
    const before = await service.listKeys(OWNER);

    const otherBody = await createWith(key, { name: `second ${key}` });
    assertConflict(otherBody);
    conformance.assertResponse("POST", KEYS_PATH, otherBody);
    // An added field, even one with its default value, is another body.
    assertConflict(await createWith(key, { name, permissions: ["ALL"] }));
    // The same body for a sub-account is another path.
    assertConflict(await createWith(key, { name }, { accountKey: service.accountKeys[SUB] }));
    // The caller's keys are one scope across both create endpoints.
    const tfa = await tfaWith(key);
    assertConflict(tfa);
    conformance.assertResponse("POST", TFA_PATH, tfa);

    assert.deepEqual(await service.listKeys(OWNER), before, "no key was created in the owner's account");
    assert.equal((await named(`${name}`, SUB)).length, 0, "nor in the sub-account");
    // The first request still gets its answer.
    const again = await createWith(key, { name });
    assertSameAnswer(first, again);
    assert.equal((again.json as ApiKey).key, created.key);
  });

  test("the same key under two accounts is two independent requests", async () => {
    const key = randomUUID();
    const name = `shared idempotency key ${key}`;
    const ownerFirst = await createWith(key, { name });
    const otherFirst = await createWith(key, { name }, { username: OTHER });
    const ownerKey = assertOk<ApiKey>(ownerFirst);
    const otherKey = assertOk<ApiKey>(otherFirst);
    assert.notEqual(ownerKey.key, otherKey.key);
    assert.notEqual(ownerKey.publicApiKey, otherKey.publicApiKey);
    assert.equal(ownerKey.accountKey, service.accountKeys[OWNER]);
    assert.equal(otherKey.accountKey, service.accountKeys[OTHER]);
    // Each account's record is its own: the other account's second body conflicts with its first.
    assertConflict(await createWith(key, { name: `${name} (other)` }, { username: OTHER }));
    assertSameAnswer(ownerFirst, await createWith(key, { name }));
    assertSameAnswer(otherFirst, await createWith(key, { name }, { username: OTHER }));
    assert.equal((await named(name)).length, 1);
    assert.equal((await named(name, OTHER)).length, 1);
  });

  test("a failed request is not remembered: retried with the same key it is evaluated afresh", async () => {
    const key = randomUUID();
    const name = `after a 400 ${key}`;
    assertValidationError(await createWith(key, { name: "" }), "name");
    // The same failing request again: still the 400, not a replay and not a conflict.
    assertValidationError(await createWith(key, { name: "" }), "name");
    assertValidationError(await createWith(key, { name, permissions: ["NOPE"] }), "permissions");
    const good = await createWith(key, { name });
    const created = assertOk<ApiKey>(good);
    assertSameAnswer(good, await createWith(key, { name }));
    const listed = await named(name);
    assert.deepEqual(
      listed.map((k) => k.key),
      [created.key],
    );
  });

  test("20 concurrent requests with the same key create one key and all get the same answer", async () => {
    const key = randomUUID();
    const name = `concurrent ${key}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => createWith(key, { name })));
    const first = answers[0] as ApiResponse;
    assertOk(first);
    for (const answer of answers) assertSameAnswer(first, answer);
    const listed = await named(name);
    assert.equal(listed.length, 1, JSON.stringify(listed));
    assert.deepEqual(listed[0], first.json);
  });

  test("concurrent requests with the same key and different bodies: one key, the rest 409", async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => createWith(key, { name: `race ${key} #${index}` })),
    );
    const ok = answers.filter((answer) => answer.status === 200);
    assert.equal(ok.length, 1, answers.map((a) => a.status).join(","));
    for (const answer of answers) if (answer.status !== 200) assertConflict(answer);
    const all = await service.listKeys(OWNER);
    assert.equal(all.filter((k) => k.name.startsWith(`race ${key}`)).length, 1);
  });

  test("the remembered answer survives a restart of the service", async () => {
    const key = randomUUID();
    const name = `across a restart ${key}`;
    const first = await createWith(key, { name });
    assertOk(first);
    const tfaFirst = await tfaWith(key.toUpperCase());
    assert.equal(tfaFirst.status, 200, tfaFirst.text);
    await service.restart();
    assertSameAnswer(first, await createWith(key, { name }));
    assertSameAnswer(tfaFirst, await tfaWith(key.toUpperCase()));
    assertConflict(await createWith(key, { name: `${name} changed` }));
    assert.equal((await named(name)).length, 1);
    assert.equal((await service.listKeys(OWNER, `?publicApiKey=${tfaFirst.json as string}`)).length, 1);
  });
});

describe("the 2FA key endpoint with an Idempotency-Key", () => {
  test("the same key twice answers the same publicApiKey and creates one TFA key", async () => {
    const key = randomUUID();
    const before = (await service.listKeys(OWNER)).length;
    const first = await tfaWith(key);
    assert.equal(first.status, 200, first.text);
    assert.match(first.json as string, PUBLIC_API_KEY_PATTERN);
    const again = await tfaWith(key);
    assertSameAnswer(first, again);
    conformance.assertResponse("POST", TFA_PATH, again);
    // No body and `{}` are the same request: the call takes no body.
    assertSameAnswer(first, await tfaWith(key, { body: {} }));
    const after = await service.listKeys(OWNER);
    assert.equal(after.length, before + 1);
    const [tfaKey] = await service.listKeys(OWNER, `?publicApiKey=${first.json as string}`);
    assert.deepEqual(tfaKey?.permissions, ["TFA"]);
  });

  test("another version is another path (409); without the header every call makes a new key", async () => {
    const key = randomUUID();
    const first = await tfaWith(key, { version: "1" });
    assert.equal(first.status, 200, first.text);
    assertConflict(await tfaWith(key, { version: "2" }));
    assertConflict(await createWith(key, { name: "a key" }));
    const plain = () =>
      service.call({ method: "POST", path: "/2fa/2/api-key", authorization: service.auth(OWNER) });
    const a = await plain();
    const b = await plain();
    assert.equal(a.status, 200);
    assert.notEqual(a.json, b.json);
  });

  test("a refused body is not remembered", async () => {
    const key = randomUUID();
    assertValidationError(await tfaWith(key, { body: { name: "no" } }), "body");
    const ok = await tfaWith(key);
    assert.equal(ok.status, 200, ok.text);
    assertSameAnswer(ok, await tfaWith(key));
  });
});

/** One request over a raw socket, headers exactly as given (repeated ones, raw bytes). */
function rawRequest(url: string, head: string, body: string): Promise<ApiResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [statusLine = "", ...rest] = text.split("\r\n\r\n")[0]?.split("\r\n") ?? [];
      const headers: Record<string, string> = {};
      for (const line of rest) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const bodyText = text.slice(text.indexOf("\r\n\r\n") + 4);
      let json: unknown;
      try {
        json = JSON.parse(bodyText);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, text: bodyText, json });
    });
    socket.write(
      Buffer.concat([
        Buffer.from(
          `POST ${keysPath()} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n` +
            `Authorization: ${service.auth(OWNER)}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n`,
          "latin1",
        ),
        Buffer.from(head, "utf8"),
        Buffer.from(`\r\n${body}`, "latin1"),
      ]),
    );
  });
}

describe("the Idempotency-Key header is validated", () => {
  test("values that are not 1–255 visible ASCII characters are a 400 naming the header", async () => {
    const name = `invalid header ${randomUUID()}`;
    const invalid = ["", "x".repeat(256), "has space", "tab\there", "ümlaut", "é"];
    for (const value of invalid) {
      const res = await createWith(value, { name });
      const messages = assertValidationError(res, "Idempotency-Key");
      assert.deepEqual(
        Object.keys(assertApiError(res, 400, "BAD_REQUEST").validationErrors ?? {}),
        ["Idempotency-Key"],
        `${JSON.stringify(value)}: ${res.text}`,
      );
      assert.ok(messages.length > 0);
      conformance.assertResponse("POST", KEYS_PATH, res);
    }
    const tfa = await tfaWith("has space");
    assertValidationError(tfa, "Idempotency-Key");
    assert.equal((await named(name)).length, 0, "no invalid request created a key");
  });

  test("raw UTF-8 bytes and a header given twice are refused; the bounds are accepted", async () => {
    const name = `raw header ${randomUUID()}`;
    const body = JSON.stringify({ name });
    const utf8 = await rawRequest(service.url, "Idempotency-Key: caf\u00e9-\u4e2d\r\n", body);
    assertValidationError(utf8, "Idempotency-Key");
    const twice = await rawRequest(service.url, "Idempotency-Key: one\r\nidempotency-key: one\r\n", body);
    const messages = assertValidationError(twice, "Idempotency-Key");
    assert.deepEqual(messages, ["must be given once"]);
    assert.equal((await named(name)).length, 0);

    const longest = `${"!".repeat(127)}${"~".repeat(128)}`;
    assert.equal(longest.length, 255);
    for (const value of [longest, "a", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"]) {
      const first = await createWith(value, { name });
      assertOk(first);
      assertSameAnswer(first, await createWith(value, { name }));
    }
    assert.equal((await named(name)).length, 3);
  });
});

describe("records expire after 24 hours (the service's clock)", { skip: SQLITE_ONLY }, () => {
  let dataDir: string;
  let running: Awaited<ReturnType<typeof startKeyService>>;
  let clock = Date.UTC(2026, 0, 1);
  const auth = basic("clocked", "clocked-secret-1");

  before(async () => {
    dataDir = await makeTempDir("keydesk-idempotency-");
    await addAccount(dataDir, "clocked", "clocked-secret-1");
    running = await startKeyService({
      dataDir,
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      now: () => clock,
    });
  });
  after(async () => {
    await running?.close();
    await removeDir(dataDir);
  });

  const create = (name: string) =>
    request(running.url, {
      method: "POST",
      path: keysPath(),
      authorization: auth,
      body: { name },
      headers: { "idempotency-key": "daily-sync-1" },
    });

  test("until 24 hours the answer is replayed; from then on the key is a new request", async () => {
    const start = clock;
    const first = await create("day one");
    const created = assertOk<ApiKey>(first);
    clock = start + DAY_MS - 1;
    assertSameAnswer(first, await create("day one"));
    assert.equal((await create("another body")).status, 409);

    clock = start + DAY_MS;
    // Expired: even another body is a new request now, and it is remembered in turn.
    const next = await create("day two");
    const second = assertOk<ApiKey>(next);
    assert.notEqual(second.key, created.key);
    clock = start + DAY_MS + 1000;
    assertSameAnswer(next, await create("day two"));
    assert.equal((await create("day one")).status, 409);

    const listed = await request(running.url, { path: keysPath(), authorization: auth });
    const names = (assertOk<{ apiKeys: ApiKey[] }>(listed).apiKeys ?? []).map((k) => k.name);
    assert.deepEqual(names, ["day one", "day two"]);
  });
});
