import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
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
 * Hostile and odd input against a real `serve` process: malformed JSON, wrong media types,
 * oversized and deeply nested bodies, unusual Unicode, strange path segments. Every answer is
 * a 4xx in the one error shape (never a 5xx), nothing is stored on a refusal, and the process
 * keeps serving.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const MESSAGE_ID_OF_STATUS: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

function assertApiError(response: ApiResponse, status: number | number[], context = ""): void {
  const statuses = Array.isArray(status) ? status : [status];
  const where = `${context} answered ${response.status} ${response.text.slice(0, 300)}`;
  assert.ok(statuses.includes(response.status), `expected ${statuses.join(" or ")}: ${where}`);
  assert.match(String(response.headers["content-type"]), /^application\/json/, where);
  const exception = (response.json as { requestError?: { serviceException?: Record<string, unknown> } })
    ?.requestError?.serviceException;
  assert.ok(exception, `not the error shape: ${where}`);
  assert.equal(exception.messageId, MESSAGE_ID_OF_STATUS[response.status], where);
  assert.equal(typeof exception.text, "string", where);
  assert.ok((exception.text as string).length > 0, where);
  assert.doesNotMatch(response.text, /\bat .+\.ts:\d+|SQLITE|node_modules/, `internals leaked: ${where}`);
}

/** Sends bytes as they are over a fresh connection and parses the one answer. */
function rawExchange(port: number, bytes: Buffer): Promise<{ status: number; json: unknown; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = raw.split("\r\n\r\n", 2);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), json, raw });
    });
    socket.end(bytes);
  });
}

describe("malformed and hostile input to a running service", () => {
  let dir: string;
  let server: ServeProcess;
  const auth = basic("odd", "odd-password");

  before(async () => {
    dir = await makeTempDir();
    await addAccount(dir, "odd", "odd-password");
    server = await startServe({ dataDir: dir });
  });

  after(async () => {
    const exit = await server?.stop();
    await removeDir(dir);
    assert.deepEqual(exit, { code: 0, signal: null }, `serve stderr: ${server?.stderr()}`);
  });

  /** `contentType: null` sends the body without a Content-Type header. */
  const post = (rawBody: string | Buffer, contentType: string | null = "application/json") =>
    request(server.url, {
      method: "POST",
      path: KEYS,
      authorization: auth,
      rawBody,
      headers: contentType === null ? {} : { "content-type": contentType },
    });
  const keyCount = async () => {
    const list = await request(server.url, { path: KEYS, authorization: auth });
    assert.equal(list.status, 200, list.text);
    return (list.json as { apiKeys: unknown[] }).apiKeys.length;
  };
  const createKey = async (name: string) => {
    const created = await request(server.url, {
      method: "POST",
      path: KEYS,
      authorization: auth,
      body: { name },
    });
    assert.equal(created.status, 200, created.text);
    return created.json as { key: string; name: string; publicApiKey: string };
  };

  test("malformed JSON bodies are refused with 400 BAD_REQUEST and create nothing", async () => {
    const before = await keyCount();
    const malformed: Record<string, string> = {
      truncated: '{"name":"x"',
      "truncated string": '{"name":"x',
      "trailing garbage": '{"name":"x"} trailing',
      "second document": '{"name":"x"}{"name":"y"}',
      "extra closing brace": '{"name":"x"}}',
      NaN: '{"name":"x","permissions":NaN}',
      Infinity: '{"name":"x","validFrom":Infinity}',
      "single quotes": "{'name':'x'}",
      "unquoted key": '{name:"x"}',
      "trailing comma": '{"name":"x",}',
      comment: '{"name":"x" /* comment */}',
      undefined: "undefined",
      "bare word": "hello",
      "invalid escape": '{"name":"\\x41"}',
      "raw control characters in a string": '{"name":"a\tb\nc"}',
      "hex number": '{"name":"x","enabled":0x1}',
    };
    for (const [label, body] of Object.entries(malformed)) {
      const response = await post(body);
      assertApiError(response, 400, label);
    }
    assert.equal(await keyCount(), before, "no key was created by a malformed body");
  });

  test("a UTF-8 byte order mark before the JSON is ignored, as RFC 8259 allows", async () => {
    const response = await post(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"bom"}')]),
    );
    assert.equal(response.status, 200, response.text);
    assert.equal((response.json as { name: string }).name, "bom");
  });

  test("a body that is not application/json is refused with 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const before = await keyCount();
    const json = '{"name":"x"}';
    for (const type of [
      "text/plain",
      "application/xml",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=----x",
      "application/jsonp",
      "text/json",
    ]) {
      assertApiError(await post(json, type), 415, type);
    }
    assertApiError(await post(json, null), 415, "a body without Content-Type");
    assert.equal(await keyCount(), before);
  });

  test("a 1 MiB body is refused with 413 PAYLOAD_TOO_LARGE and the service answers the next request", async () => {
    const before = await keyCount();
    const huge = JSON.stringify({ name: "x".repeat(1024 * 1024) });
    assertApiError(await post(huge), 413, "1 MiB body");
    // Just over the 64 KiB limit, and just under it (the name is then too long: 400, not 413).
    assertApiError(await post(JSON.stringify({ name: "y".repeat(64 * 1024) })), 413, "64 KiB + a few bytes");
    assertApiError(
      await post(JSON.stringify({ name: "z".repeat(64 * 1024 - 20) })),
      400,
      "just under 64 KiB",
    );
    assert.equal(await keyCount(), before);
    const created = await createKey("after the big body");
    assert.equal(created.name, "after the big body");
  });

  test("deeply nested JSON (10,000 levels) is refused with 400, not a crash", async () => {
    const depth = 10_000;
    const cases: Record<string, string> = {
      "nested arrays": `${"[".repeat(depth)}${"]".repeat(depth)}`,
      "unclosed nested arrays": "[".repeat(depth),
      "nested arrays as the name": `{"name":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      "nested objects": `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
      "nested objects with a constructor key at the bottom": `{"name":"x","allowedIPs":${'{"a":'.repeat(depth)}{"constructor":{"prototype":1}}${"}".repeat(depth)}}`,
    };
    const before = await keyCount();
    for (const [label, body] of Object.entries(cases)) {
      assertApiError(await post(body), 400, label);
    }
    assert.equal(await keyCount(), before);
  });

  test("prototype-poisoning keys are refused with 400 and change nothing", async () => {
    const before = await keyCount();
    for (const body of [
      '{"name":"x","__proto__":{"enabled":false}}',
      '{"name":"x","constructor":{"prototype":{"enabled":false}}}',
      '{"name":"x","constructor":0}',
      '{"name":"x","toString":"y","hasOwnProperty":1}',
    ]) {
      assertApiError(await post(body), 400, body);
    }
    assert.equal(await keyCount(), before);
    const created = await createKey("plain");
    assert.equal((created as { enabled?: boolean }).enabled, true);
  });

  test("unusual Unicode names are stored and answered exactly as sent", async () => {
    const names = [
      "🔑 payments 🚀",
      "👩🏽‍💻 family 👨‍👩‍👧‍👦",
      "e\u0301te\u0301 (combining accents)",
      "Z\u0351\u0308\u0302a\u0314\u0362lgo",
      "שלום עולם",
      "مفتاح API",
      "\u202Eevil\u202C override",
      "a\u200Bzero\u200Cwidth\u200Djoiners\u2060",
      "zero\uFEFFwidth no-break space inside",
      "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙",
      "日本語のキー",
      "\u{10FFFF} last code point",
      "😀".repeat(255),
    ];
    for (const name of names) {
      const created = await createKey(name);
      assert.equal(created.name, name, `create answer for ${JSON.stringify(name)}`);
      const fetched = await request(server.url, { path: `${KEYS}/${created.key}`, authorization: auth });
      assert.equal(fetched.status, 200);
      assert.equal((fetched.json as { name: string }).name, name, `stored name for ${JSON.stringify(name)}`);
      const byName = await request(server.url, {
        path: `${KEYS}?name=${encodeURIComponent(name)}`,
        authorization: auth,
      });
      assert.equal(byName.status, 200, byName.text);
      const found = (byName.json as { apiKeys: { key: string }[] }).apiKeys.map((k) => k.key);
      assert.ok(found.includes(created.key), `?name= finds ${JSON.stringify(name)}`);
    }
  });

  test("names with a lone surrogate, NUL or other control characters are refused with 400 on name", async () => {
    const before = await keyCount();
    const bodies: Record<string, string> = {
      "lone high surrogate": '{"name":"abc\\ud800"}',
      "lone low surrogate": '{"name":"\\udc00abc"}',
      "reversed surrogate pair": '{"name":"\\udc00\\ud800"}',
      NUL: '{"name":"a\\u0000b"}',
      "only NUL": '{"name":"\\u0000"}',
      "bell character": '{"name":"ring\\u0007"}',
      "line break": '{"name":"two\\nlines"}',
      "256 emoji": JSON.stringify({ name: "😀".repeat(256) }),
    };
    for (const [label, body] of Object.entries(bodies)) {
      const response = await post(body);
      assertApiError(response, 400, label);
      const errors = (response.json as { requestError: { serviceException: { validationErrors?: object } } })
        .requestError.serviceException.validationErrors;
      assert.ok(errors && "name" in errors, `${label}: validationErrors names the name field`);
    }
    assert.equal(await keyCount(), before);
  });

  test("odd path segments get a 4xx in the error shape, never a 5xx, and the service keeps serving", async () => {
    const existing = await createKey("path target");
    const segments = [
      "%00",
      "%2e%2e",
      "%2E%2E%2F%2E%2E",
      "..%2f",
      "..%2F..%2Fetc%2Fpasswd",
      "..",
      ".",
      "%",
      "%zz",
      "%C0%AE%C0%AE",
      "%FF",
      "%ED%A0%80",
      "k".repeat(600),
      "A".repeat(5000),
      "%F0%9F%94%91",
      "%D0%BA%D0%BB%D1%8E%D1%87",
      ";",
      `${existing.key};jsessionid=1`,
      `${existing.key}%3B`,
      existing.key.toLowerCase(),
      `${existing.key}0`,
      `${existing.key}%20`,
      "%20",
      "null",
      "undefined",
      "__proto__",
      "constructor",
      "*",
    ];
    for (const segment of segments) {
      for (const [method, body] of [
        ["GET", undefined],
        ["PUT", { name: "renamed" }],
      ] as const) {
        const keyPath = `${KEYS}/${segment}`;
        const context = `${method} ${keyPath.slice(0, 120)}`;
        const response = await request(server.url, { method, path: keyPath, authorization: auth, body });
        assertApiError(response, [400, 404], context);
      }
      const accountPath = `/settings/1/accounts/${segment}/api-keys`;
      const response = await request(server.url, { path: accountPath, authorization: auth });
      assertApiError(response, [400, 404], `GET ${accountPath.slice(0, 120)}`);
    }
    // The key addressed in odd ways was never touched, and its exact id still works.
    const fetched = await request(server.url, { path: `${KEYS}/${existing.key}`, authorization: auth });
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.json, existing);
  });

  test("requests the HTTP parser refuses (raw Unicode, spaces or control bytes in the path) get a 400 in the error shape", async () => {
    const lines = [
      `GET ${KEYS}/ключ HTTP/1.1`,
      `GET ${KEYS}/🔑 HTTP/1.1`,
      `GET ${KEYS}/a b HTTP/1.1`,
      `GET ${KEYS}/a\u0000b HTTP/1.1`,
      `GET ${KEYS}/a\tb HTTP/1.1`,
      `GET ${KEYS}/a\u007fb HTTP/1.1`,
      "NOT AN HTTP REQUEST",
      `GET ${KEYS} HTTP/9.9`,
    ];
    for (const line of lines) {
      const head = `${line}\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`;
      const answer = await rawExchange(server.port, Buffer.from(head, "utf8"));
      assert.ok(
        answer.status >= 400 && answer.status < 500,
        `${JSON.stringify(line)} answered ${answer.raw}`,
      );
      const exception = (answer.json as { requestError?: { serviceException?: { messageId?: string } } })
        ?.requestError?.serviceException;
      assert.equal(
        exception?.messageId,
        MESSAGE_ID_OF_STATUS[answer.status],
        `${JSON.stringify(line)}: ${answer.raw}`,
      );
    }
  });

  test("odd whole paths are answered in the error shape", async () => {
    const paths = [
      "//settings/1/accounts/_/api-keys",
      "/settings/1/accounts/_/api-keys/../api-keys",
      "/settings/1/accounts/_/api-keys?publicApiKey=%",
      "/settings/1/accounts/_/api-keys?name=%00",
      "/settings/1/accounts/_/api-keys?enabled=maybe",
      "/settings/1/accounts/_/api-keys?enabled=true&enabled=false",
      "/settings/%00/accounts/_/api-keys",
      "/settings/1/accounts//api-keys",
      `/${"x/".repeat(2000)}`,
      "/%",
    ];
    for (const path of paths) {
      const response = await request(server.url, { path, authorization: auth });
      assert.ok(response.status < 500, `${path.slice(0, 100)} answered ${response.status}`);
      if (response.status !== 200) assertApiError(response, [400, 404], path.slice(0, 100));
    }
  });

  test("after all of the above the process is still up and serving", async () => {
    assert.equal(server.child.exitCode, null);
    const created = await createKey("final good request");
    const fetched = await request(server.url, { path: `${KEYS}/${created.key}`, authorization: auth });
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.json, created);
    assert.doesNotMatch(server.stderr(), /"level":(50|60)/, "no error was logged");
  });
});
