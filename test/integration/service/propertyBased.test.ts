import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import {
  type ApiResponse,
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Random bodies, valid and invalid, against the write endpoints of one real `serve` process.
 * Whatever arrives, the service answers 200 or a 4xx in the error shape, never a 5xx, and it
 * never stores half of a request.
 */

const RUNS = 1000;
const ALLOWED_STATUSES = [200, 400, 413, 415];
const MESSAGE_ID_OF_STATUS: Record<number, string> = {
  400: "BAD_REQUEST",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};
const KEY_ID = /^[0-9A-F]{32}$/;
const PUBLIC_API_KEY = /^[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OUTPUT_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;
const KEY_FIELDS = new Set([
  "name",
  "key",
  "publicApiKey",
  "accountKey",
  "allowedIPs",
  "permissions",
  "validFrom",
  "validTo",
  "enabled",
]);

interface Body {
  /** Bytes sent; undefined sends no body at all. */
  raw: string | undefined;
  contentType: string | undefined;
  /** The parsed value when `raw` is JSON, to compare accepted fields with. */
  value?: unknown;
}

// ---- generators -------------------------------------------------------------------------

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }),
  fc.constantFrom("", " ", "  padded  ", "\t", "line\nbreak", "a\u0000b", "\u202Eright-to-left", "e\u0301"),
);
const hugeText = fc
  .tuple(
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 4 }),
    fc.integer({ min: 10_000, max: 72_000 }),
  )
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)));
const ipLike = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.tuple(fc.ipV4(), fc.integer({ min: -1, max: 40 })).map(([ip, prefix]) => `${ip}/${prefix}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 130 })).map(([ip, prefix]) => `${ip}/${prefix}`),
  fc.constantFrom("::ffff:10.0.0.1", "fe80::1%eth0", "10.0.0.1/", "/8", "127.1", "0x7f.0.0.1", " 10.0.0.1 "),
);
const pad2 = (n: number) => String(n).padStart(2, "0");
const wellFormedDateTime = fc
  .tuple(
    fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 30)), noInvalidDate: true }),
    fc.constantFrom("+0000", "Z", "+01:00", "-0530", "+1400"),
  )
  .map(([date, offset]) => date.toISOString().replace("Z", offset));
const dateTimeLike = fc.oneof(
  wellFormedDateTime,
  fc
    .tuple(
      fc.integer({ min: 0, max: 12_000 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
      fc.integer({ min: 0, max: 25 }),
      fc.integer({ min: 0, max: 61 }),
      fc.constantFrom("Z", "+0000", "+01:00", "-0530", "+1900", "+0060", "", "+00"),
    )
    .map(
      ([year, month, day, hour, minute, offset]) =>
        `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:00.000${offset}`,
    ),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom("2026-01-31", "2026-01-31T13:45:00+0000", "2026-01-31 13:45:00.000+0000", "now"),
);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  ipLike,
  dateTimeLike,
  fc.constantFrom("ALL", "TFA", "all", "NONE"),
);
const fieldValue = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: fc.array(scalar, { maxLength: 6 }) },
  { weight: 2, arbitrary: fc.array(fc.oneof(ipLike, fc.constantFrom("ALL", "TFA")), { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(ipLike, { minLength: 200, maxLength: 300 }) },
);
/** Values likely to be accepted, so that a good share of the runs exercises the success path. */
const validish = {
  name: fc.oneof(
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
    fc.constantFrom("ci", " app "),
  ),
  allowedIPs: fc.oneof(fc.constant(null), fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { maxLength: 4 })),
  permissions: fc.subarray(["ALL", "TFA", "ALL"], { minLength: 1 }),
  validFrom: fc.oneof(fc.constant(null), dateTimeLike, fc.constant("2020-01-01T00:00:00.000+0000")),
  validTo: fc.oneof(fc.constant(null), dateTimeLike, fc.constant("2099-12-31T23:59:59.999-01:00")),
  enabled: fc.boolean(),
};

function fieldsObject(
  names: string[],
  extra: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    const likely = validish[name as keyof typeof validish] ?? fc.constant(undefined);
    record[name] = fc.oneof(
      { weight: 60, arbitrary: likely },
      { weight: 20, arbitrary: fieldValue },
      { weight: 1, arbitrary: hugeText },
    );
  }
  Object.assign(record, extra);
  return fc.record(record, { requiredKeys: [] });
}

/** Objects of well-formed values only (validTo may still precede validFrom). */
function likelyValidObject(names: string[]): fc.Arbitrary<Record<string, unknown>> {
  const wellFormed: Record<string, fc.Arbitrary<unknown>> = {
    ...validish,
    validFrom: fc.oneof(fc.constant(null), wellFormedDateTime),
    validTo: fc.oneof(fc.constant(null), wellFormedDateTime),
  };
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) if (wellFormed[name]) record[name] = wellFormed[name];
  return fc.record(record, { requiredKeys: names.includes("name") ? ["name"] : [] });
}

const unknownField = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("Name", "extra", "id", "__proto__", "constructor")),
  scalar,
  { minKeys: 1, maxKeys: 2 },
);

const contentType = fc.oneof(
  { weight: 20, arbitrary: fc.constant("application/json") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/jsonx",
      "multipart/form-data; boundary=x",
    ),
  },
);

function asBody(value: unknown, type: string): Body {
  const raw = JSON.stringify(value) as string | undefined;
  return raw === undefined
    ? { raw: "", contentType: type }
    : { raw, contentType: type, value: JSON.parse(raw) };
}

/** Bodies built around the given field names, mixed with anything, raw JSON and huge payloads. */
function bodies(fieldNames: string[], extra: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Body> {
  const object = fieldsObject(fieldNames, extra);
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(object, contentType).map(([value, type]) => asBody(value, type)) },
    {
      weight: 5,
      arbitrary: likelyValidObject(fieldNames).map((value) => asBody(value, "application/json")),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(object, unknownField, contentType)
        .map(([value, unknown, type]) => asBody({ ...value, ...unknown }, type)),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.anything(), contentType).map(([value, type]) => asBody(value, type)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.json(), contentType)
        .map(([raw, type]) => ({ raw, contentType: type, value: JSON.parse(raw) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(hugeText, fc.constantFrom("name", "other"))
        .map(([huge, field]) => asBody({ [field]: huge }, "application/json")),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>(
        { raw: undefined, contentType: undefined },
        { raw: "", contentType: "application/json" },
        { raw: "{", contentType: "application/json" },
        { raw: '{"name":"x"} trailing', contentType: "application/json" },
        { raw: "{'name':'x'}", contentType: "application/json" },
        { raw: '{"name":NaN}', contentType: "application/json" },
      ),
    },
  );
}

/** Counts answers per status, so each test can show it exercised every outcome. */
class StatusTally {
  readonly counts = new Map<number, number>();
  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }
  of(status: number): number {
    return this.counts.get(status) ?? 0;
  }
  toString(): string {
    return [...this.counts].map(([status, count]) => `${status}: ${count}`).join(", ");
  }
  /** The generators must reach every outcome, or the property says little. */
  assertCovered(statuses: number[]): void {
    for (const status of statuses) assert.ok(this.of(status) >= 3, `too few ${status} answers (${this})`);
  }
}

// ---- checks -----------------------------------------------------------------------------

const describeCase = (body: Body, response: ApiResponse) =>
  `request ${JSON.stringify(body).slice(0, 400)} answered ${response.status} ${response.text.slice(0, 400)}`;

function assertStatusAndShape(body: Body, response: ApiResponse): void {
  const context = describeCase(body, response);
  assert.ok(ALLOWED_STATUSES.includes(response.status), `unexpected status: ${context}`);
  if (response.status === 200) return;
  const exception = (response.json as { requestError?: { serviceException?: Record<string, unknown> } })
    ?.requestError?.serviceException;
  assert.ok(exception, `error without the error shape: ${context}`);
  assert.equal(exception.messageId, MESSAGE_ID_OF_STATUS[response.status], context);
  assert.equal(typeof exception.text, "string", context);
  assert.ok((exception.text as string).length > 0, context);
  assert.deepEqual(Object.keys(response.json as object), ["requestError"], context);
  const validationErrors = exception.validationErrors;
  if (validationErrors !== undefined) {
    assert.equal(typeof validationErrors, "object", context);
    for (const messages of Object.values(validationErrors as object)) {
      assert.ok(
        Array.isArray(messages) && messages.every((m) => typeof m === "string"),
        `validationErrors entries must be string arrays: ${context}`,
      );
    }
  }
}

function assertWellFormedKey(key: Record<string, unknown>, accountKey: string, context: string): void {
  for (const field of Object.keys(key))
    assert.ok(KEY_FIELDS.has(field), `unexpected field ${field}: ${context}`);
  assert.equal(typeof key.name, "string", context);
  const name = key.name as string;
  assert.ok(name.length > 0 && name === name.trim() && name.isWellFormed(), `bad name: ${context}`);
  assert.match(key.key as string, KEY_ID, context);
  assert.match(key.publicApiKey as string, PUBLIC_API_KEY, context);
  assert.equal(key.accountKey, accountKey, context);
  const permissions = key.permissions as string[];
  assert.ok(Array.isArray(permissions) && permissions.length > 0, context);
  assert.ok(
    permissions.every((p) => p === "ALL" || p === "TFA"),
    context,
  );
  assert.equal(new Set(permissions).size, permissions.length, `duplicate permissions: ${context}`);
  assert.equal(typeof key.enabled, "boolean", context);
  if ("allowedIPs" in key) {
    const ips = key.allowedIPs as string[];
    assert.ok(Array.isArray(ips) && ips.length > 0 && ips.every((ip) => typeof ip === "string"), context);
  }
  for (const field of ["validFrom", "validTo"]) {
    if (field in key) assert.match(key[field] as string, OUTPUT_DATETIME, context);
  }
  if ("validFrom" in key && "validTo" in key) {
    assert.ok(Date.parse(key.validTo as string) > Date.parse(key.validFrom as string), context);
  }
}

/** Fields the request sent with a plain value must come back as sent (names trimmed). */
function assertSentFieldsApplied(body: Body, key: Record<string, unknown>, context: string): void {
  const sent = body.value as Record<string, unknown> | undefined;
  if (typeof sent !== "object" || sent === null || Array.isArray(sent)) return;
  if (typeof sent.name === "string") assert.equal(key.name, sent.name.trim(), context);
  if (typeof sent.enabled === "boolean") assert.equal(key.enabled, sent.enabled, context);
  if (Array.isArray(sent.permissions)) {
    assert.deepEqual(
      [...(key.permissions as string[])].sort(),
      [...new Set(sent.permissions as string[])].sort(),
      context,
    );
  }
  for (const field of ["allowedIPs", "validFrom", "validTo"]) {
    if (sent[field] === null) assert.equal(field in key, false, `${field}: null must clear: ${context}`);
  }
  if (Array.isArray(sent.allowedIPs) && sent.allowedIPs.length === 0)
    assert.equal("allowedIPs" in key, false);
}

// ---- the properties ---------------------------------------------------------------------

describe("random bodies against the write endpoints of a running service", () => {
  let dir: string;
  let server: ServeProcess;
  let creatorKey: string;
  let updaterKey: string;
  const creator = basic("creator", "creator-pw");
  const updater = basic("updater", "updater-pw");

  before(async () => {
    dir = await makeTempDir();
    creatorKey = await addAccount(dir, "creator", "creator-pw");
    updaterKey = await addAccount(dir, "updater", "updater-pw");
    server = await startServe({ dataDir: dir });
  });

  after(async () => {
    const exit = await server?.stop();
    await removeDir(dir);
    // A serve process that died mid-run (crash) would show up here as a non-zero exit.
    assert.deepEqual(exit, { code: 0, signal: null }, `serve stderr: ${server?.stderr()}`);
  });

  const send = (method: string, path: string, authorization: string, body: Body) =>
    request(server.url, {
      method,
      path,
      authorization,
      ...(body.raw !== undefined && { rawBody: body.raw }),
      headers: body.contentType ? { "content-type": body.contentType } : {},
    });

  test("POST create: 1,000 random bodies answer 200 or 400/413/415 in the error shape, and every 200 is stored exactly as answered", async (t) => {
    const createdKeys: string[] = [];
    const tally = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        bodies(["name", "allowedIPs", "permissions", "validFrom", "validTo"]),
        async (body) => {
          const response = await send("POST", "/settings/1/accounts/_/api-keys", creator, body);
          tally.add(response.status);
          assertStatusAndShape(body, response);
          if (response.status !== 200) return;
          const context = describeCase(body, response);
          const key = response.json as Record<string, unknown>;
          assertWellFormedKey(key, creatorKey, context);
          assert.equal(key.enabled, true, context);
          assertSentFieldsApplied(body, key, context);
          createdKeys.push(key.key as string);
          const stored = await request(server.url, {
            path: `/settings/1/accounts/_/api-keys/${key.key}`,
            authorization: creator,
          });
          assert.equal(stored.status, 200, context);
          assert.deepEqual(stored.json, key, `stored copy differs: ${context}`);
        },
      ),
      { numRuns: RUNS },
    );
    t.diagnostic(`answers: ${tally}`);
    tally.assertCovered([200, 400, 413, 415]);
    assert.ok(tally.of(200) >= 100, `only ${tally.of(200)} of ${RUNS} bodies were accepted`);
    const list = await request(server.url, {
      path: "/settings/1/accounts/_/api-keys",
      authorization: creator,
    });
    assert.equal(list.status, 200);
    const listed = (list.json as { apiKeys: { key: string }[] }).apiKeys.map((k) => k.key);
    assert.deepEqual(listed, createdKeys, "the account holds exactly the keys answered with 200, in order");
  });

  test("POST /2fa/2/api-key: 1,000 random bodies; only empty ones create a TFA key, and nothing else is stored", async (t) => {
    const tally = new StatusTally();
    const before = await request(server.url, {
      path: "/settings/1/accounts/_/api-keys",
      authorization: creator,
    });
    const keysBefore = (before.json as { apiKeys: unknown[] }).apiKeys.length;
    const created: string[] = [];
    const emptyBodies = fc.constantFrom<Body>(
      { raw: undefined, contentType: undefined },
      { raw: "", contentType: "application/json" },
      { raw: "  ", contentType: "application/json" },
      { raw: "{}", contentType: "application/json" },
      { raw: " { } ", contentType: "application/json; charset=utf-8" },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 1, arbitrary: emptyBodies },
          { weight: 4, arbitrary: bodies(["name", "permissions"]) },
        ),
        async (body) => {
          const response = await send("POST", "/2fa/2/api-key", creator, body);
          tally.add(response.status);
          assertStatusAndShape(body, response);
          if (response.status !== 200) return;
          const context = describeCase(body, response);
          assert.match(String(response.headers["content-type"]), /^application\/json/, context);
          assert.equal(typeof response.json, "string", context);
          const publicApiKey = response.json as string;
          assert.match(publicApiKey, PUBLIC_API_KEY, context);
          created.push(publicApiKey);
          const lookup = await request(server.url, {
            path: `/settings/1/accounts/_/api-keys?publicApiKey=${encodeURIComponent(publicApiKey)}`,
            authorization: creator,
          });
          assert.equal(lookup.status, 200, context);
          const found = (lookup.json as { apiKeys: Record<string, unknown>[] }).apiKeys;
          assert.equal(found.length, 1, context);
          const [key] = found as [Record<string, unknown>];
          assertWellFormedKey(key, creatorKey, context);
          assert.deepEqual(key.permissions, ["TFA"], context);
          assert.equal(key.publicApiKey, publicApiKey, context);
        },
      ),
      { numRuns: RUNS },
    );
    t.diagnostic(`answers: ${tally}`);
    tally.assertCovered([200, 400, 413, 415]);
    const list = await request(server.url, {
      path: "/settings/1/accounts/_/api-keys",
      authorization: creator,
    });
    const keys = (list.json as { apiKeys: { publicApiKey: string }[] }).apiKeys;
    assert.equal(keys.length, keysBefore + created.length, "one key per 200 answer, none for the others");
    assert.deepEqual(
      keys.slice(keysBefore).map((k) => k.publicApiKey),
      created,
    );
  });

  test("PUT update: 1,000 random bodies; a refused update leaves the key as it was, an accepted one is stored as answered", async (t) => {
    const tally = new StatusTally();
    const created = await request(server.url, {
      path: "/settings/1/accounts/_/api-keys",
      authorization: updater,
      body: { name: "target", allowedIPs: ["10.0.0.0/8"], validFrom: "2026-01-01T00:00:00.000+0000" },
    });
    assert.equal(created.status, 200, created.text);
    const target = created.json as { key: string; publicApiKey: string; accountKey: string };
    const path = `/settings/1/accounts/_/api-keys/${target.key}`;
    const assigned = (value: string) =>
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(value) },
        { weight: 1, arbitrary: fc.constant(value.toLowerCase()) },
        { weight: 1, arbitrary: text },
      );
    await fc.assert(
      fc.asyncProperty(
        bodies(["name", "allowedIPs", "permissions", "validFrom", "validTo", "enabled"], {
          key: assigned(target.key),
          publicApiKey: assigned(target.publicApiKey),
          accountKey: assigned(target.accountKey),
        }),
        async (body) => {
          const before = await request(server.url, { path, authorization: updater });
          assert.equal(before.status, 200);
          const response = await send("PUT", path, updater, body);
          tally.add(response.status);
          assertStatusAndShape(body, response);
          const after = await request(server.url, { path, authorization: updater });
          assert.equal(after.status, 200);
          const context = describeCase(body, response);
          if (response.status !== 200) {
            assert.deepEqual(after.json, before.json, `a refused update changed the key: ${context}`);
            return;
          }
          const key = response.json as Record<string, unknown>;
          assertWellFormedKey(key, updaterKey, context);
          assert.deepEqual(after.json, key, `stored copy differs from the answer: ${context}`);
          for (const field of ["key", "publicApiKey", "accountKey"] as const) {
            assert.equal(key[field], target[field], `${field} changed: ${context}`);
          }
          assertSentFieldsApplied(body, key, context);
          const previous = before.json as Record<string, unknown>;
          const sent = (body.value ?? {}) as Record<string, unknown>;
          for (const field of ["name", "allowedIPs", "permissions", "validFrom", "validTo", "enabled"]) {
            if (!(field in sent))
              assert.deepEqual(key[field], previous[field], `absent ${field} changed: ${context}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
    t.diagnostic(`answers: ${tally}`);
    tally.assertCovered([200, 400, 413, 415]);
    assert.ok(tally.of(200) >= 100, `only ${tally.of(200)} of ${RUNS} updates were accepted`);
    const list = await request(server.url, {
      path: "/settings/1/accounts/_/api-keys",
      authorization: updater,
    });
    assert.equal((list.json as { apiKeys: unknown[] }).apiKeys.length, 1, "updates never create keys");
  });
});
