import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createParser } from "eventsource-parser";
import { CONTENT_SECURITY_POLICY } from "../../../electron/main/security.ts";
import type { ApiKeyDto } from "../../../shared/apiKeys.ts";
import type { BridgeEvent, BridgeResult, ServiceStatusDto } from "../../../shared/bridge.ts";
import { makeTempDir, REPO_ROOT, removeDir, request } from "../../harness/keyServiceProcess.ts";
import { connectRaw, within } from "../../harness/rawSocket.ts";
import { startWebHost, WEB_UI_LINE, type WebHostProcess } from "../../harness/webHostProcess.ts";

// The real `npm run web` process on a temp data dir: the page and the bridge behind the token.
// Needs the built renderer (npm test builds before it runs the tests).

const TOKEN_HEADER = "keydesk-token";
const built = existsSync(join(REPO_ROOT, "out", "renderer", "index.html"));

describe("browser host (npm run web)", { skip: built ? false : "out/renderer is not built" }, () => {
  let dataDir: string;
  let host: WebHostProcess;

  before(async () => {
    dataDir = await makeTempDir("keydesk-web-");
    host = await startWebHost({
      dataDir,
      // Keep any real keychain of the machine apart from this test's entries.
      env: { KEYDESK_VAULT_SERVICE: `Keydesk-test-${process.pid}` },
    });
  });

  after(async () => {
    await host?.stop("SIGKILL");
    await removeDir(dataDir);
  });

  const bridgeCall = (method: string, args?: unknown, token: string | null = host.token) =>
    request(host.baseUrl, {
      method: "POST",
      path: `/bridge/${method}`,
      headers: token === null ? {} : { [TOKEN_HEADER]: token },
      ...(args === undefined ? {} : { body: args }),
    });

  it("prints exactly one line with a 127.0.0.1 address and a 32-byte token", () => {
    assert.equal(host.stdoutLines.length, 1, host.stdoutLines.join("\n"));
    assert.match(host.stdoutLines[0] as string, WEB_UI_LINE);
    assert.equal(Buffer.from(host.token, "base64url").length, 32);
  });

  it("serves the page with the token, under the app's CSP, and sets a cookie for its assets", async () => {
    const page = await request(host.baseUrl, { path: `/?token=${host.token}` });
    assert.equal(page.status, 200);
    assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
    assert.equal(page.headers["content-security-policy"], CONTENT_SECURITY_POLICY);
    assert.equal(page.headers["x-content-type-options"], "nosniff");
    assert.equal(page.headers["referrer-policy"], "no-referrer");
    assert.equal(page.text, readFileSync(join(REPO_ROOT, "out", "renderer", "index.html"), "utf8"));
    const cookie = (page.headers["set-cookie"] ?? [])[0] ?? "";
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    // Cookies ignore ports: the cookie's value reaches every local server, so it is not the token.
    assert.match(cookie, new RegExp(`^keydesk_assets_${host.port}=[A-Za-z0-9_-]{43};`));
    assert.ok(!cookie.includes(host.token), `the cookie carries the token: ${cookie}`);

    const script = /src="\.?(\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    assert.ok(script, "the page references its script");
    const withCookie = await request(host.baseUrl, {
      path: script,
      headers: { cookie: cookie.split(";")[0] as string },
    });
    assert.equal(withCookie.status, 200);
    assert.equal(withCookie.headers["content-type"], "text/javascript; charset=utf-8");
    assert.equal(withCookie.text, readFileSync(join(REPO_ROOT, "out", "renderer", script), "utf8"));
    const withoutCookie = await request(host.baseUrl, { path: script });
    assert.equal(withoutCookie.status, 401);
  });

  it("lets the cookie's secret fetch the static files only: no bridge call, no event stream", async () => {
    const page = await request(host.baseUrl, { path: `/?token=${host.token}` });
    const cookie = ((page.headers["set-cookie"] ?? [])[0] ?? "").split(";")[0] as string;
    const secret = cookie.slice(cookie.indexOf("=") + 1);
    assert.ok(secret.length > 0 && secret !== host.token, cookie);

    // A reload: the page and its script come with the cookie alone.
    const reload = await request(host.baseUrl, { path: "/", headers: { cookie, accept: "text/html" } });
    assert.equal(reload.status, 200);
    assert.equal(reload.text, page.text);
    const script = /src="\.?(\/assets\/[^"]+\.js)"/.exec(page.text)?.[1] as string;
    assert.equal((await request(host.baseUrl, { path: script, headers: { cookie } })).status, 200);

    // Whoever got the cookie (any server on another port of 127.0.0.1) cannot use it as a token.
    const refused = (status: number) => status === 401 || status === 403;
    type Attempt = { path: string; headers: Record<string, string> };
    for (const method of ["profiles.revealLocalCredentials", "service.status"]) {
      const attempts: Attempt[] = [
        { path: `/bridge/${method}`, headers: { cookie } },
        { path: `/bridge/${method}`, headers: { [TOKEN_HEADER]: secret } },
        { path: `/bridge/${method}`, headers: { cookie, [TOKEN_HEADER]: secret } },
        { path: `/bridge/${method}?token=${secret}`, headers: { cookie } },
      ];
      for (const attempt of attempts) {
        const res = await request(host.baseUrl, { method: "POST", ...attempt });
        assert.ok(refused(res.status), `${JSON.stringify(attempt)} answered ${res.status}: ${res.text}`);
        assert.ok(!res.text.includes("password"), res.text);
      }
    }
    const streamAttempts: Attempt[] = [
      { path: "/bridge/events", headers: { cookie } },
      { path: `/bridge/events?token=${secret}`, headers: { cookie } },
      { path: "/bridge/events", headers: { [TOKEN_HEADER]: secret } },
    ];
    for (const attempt of streamAttempts) {
      const res = await request(host.baseUrl, attempt);
      assert.ok(refused(res.status), `${JSON.stringify(attempt)} answered ${res.status}`);
    }
    // Nor as the page's ?token=, which the page would then take for its bridge calls.
    assert.equal((await request(host.baseUrl, { path: `/?token=${secret}` })).status, 403);
  });

  it("answers 401 without a token and 403 with a wrong one, for the page and the bridge", async () => {
    const wrong = `${host.token.slice(0, -1)}${host.token.endsWith("A") ? "B" : "A"}`;
    assert.equal((await request(host.baseUrl, { path: "/" })).status, 401);
    assert.equal((await request(host.baseUrl, { path: `/?token=${wrong}` })).status, 403);
    assert.equal(
      (
        await request(host.baseUrl, {
          path: "/",
          headers: { cookie: `keydesk_assets_${host.port}=${wrong}` },
        })
      ).status,
      403,
    );
    const noToken = await bridgeCall("service.status", undefined, null);
    assert.equal(noToken.status, 401);
    assert.deepEqual((noToken.json as BridgeResult<unknown>).ok, false);
    assert.equal((await bridgeCall("service.status", undefined, wrong)).status, 403);
    assert.equal((await bridgeCall("service.status", undefined, "")).status, 403);
  });

  it("takes a bridge call's token from the header only, not from the query or a cookie", async () => {
    const viaQuery = await request(host.baseUrl, {
      method: "POST",
      path: `/bridge/service.status?token=${host.token}`,
    });
    assert.equal(viaQuery.status, 401);
    const viaCookie = await request(host.baseUrl, {
      method: "POST",
      path: "/bridge/service.status",
      headers: { cookie: `keydesk_assets_${host.port}=${host.token}` },
    });
    assert.equal(viaCookie.status, 401);
  });

  it("refuses requests that name another host (DNS rebinding)", async () => {
    const res = await request(host.baseUrl, {
      path: `/?token=${host.token}`,
      headers: { host: `rebind.example:${host.port}` },
    });
    assert.equal(res.status, 403);
  });

  it("round-trips bridge calls to the core: status, create a key, list it", async () => {
    const status = await bridgeCall("service.status");
    assert.equal(status.status, 200);
    const statusResult = status.json as BridgeResult<ServiceStatusDto>;
    assert.ok(statusResult.ok, status.text);
    assert.equal(statusResult.value.running, true);
    assert.match(statusResult.value.baseUrl ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);

    const created = await bridgeCall("keys.create", { request: { name: "web host key" } });
    const createdResult = created.json as BridgeResult<ApiKeyDto>;
    assert.ok(createdResult.ok, created.text);
    assert.equal(createdResult.value.name, "web host key");

    const listed = await bridgeCall("keys.page", {});
    const listResult = listed.json as BridgeResult<{ keys: ApiKeyDto[] }>;
    assert.ok(listResult.ok, listed.text);
    assert.deepEqual(
      listResult.value.keys.map((key) => key.key),
      [createdResult.value.key],
    );
  });

  it("returns typed errors: invalid arguments, unknown methods, bad JSON", async () => {
    const invalid = await bridgeCall("keys.get", { key: "not a key/id" });
    assert.equal(invalid.status, 200);
    const invalidResult = invalid.json as BridgeResult<unknown>;
    assert.equal(invalidResult.ok, false);
    assert.ok(!invalidResult.ok && invalidResult.error.messageId === "INVALID_ARGUMENT", invalid.text);

    const unknown = await bridgeCall("keys.dropAll", {});
    assert.equal(unknown.status, 404);
    assert.equal((unknown.json as BridgeResult<unknown>).ok, false);

    const badJson = await request(host.baseUrl, {
      method: "POST",
      path: "/bridge/keys.page",
      headers: { [TOKEN_HEADER]: host.token, "content-type": "application/json" },
      rawBody: "{not json",
    });
    assert.equal(badJson.status, 400);
    const notJson = await request(host.baseUrl, {
      method: "POST",
      path: "/bridge/keys.page",
      headers: { [TOKEN_HEADER]: host.token, "content-type": "text/plain" },
      rawBody: "{}",
    });
    assert.equal(notJson.status, 415);
    const get = await request(host.baseUrl, {
      path: "/bridge/keys.page",
      headers: { [TOKEN_HEADER]: host.token },
    });
    assert.equal(get.status, 405);
  });

  it("refuses directory traversal, plain or encoded", async () => {
    const packageJson = readFileSync(join(REPO_ROOT, "package.json"), "utf8");
    for (const path of [
      "/../package.json",
      "/../../package.json",
      "/assets/../../package.json",
      "/%2e%2e/package.json",
      "/%2e%2e/%2e%2e/package.json",
      "/..%2fpackage.json",
      "/assets/..%2f..%2fpackage.json",
      "/..%5cpackage.json",
      "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    ]) {
      const res = await request(host.baseUrl, { path: `${path}?token=${host.token}` });
      assert.equal(res.status, 404, `${path} answered ${res.status}`);
      assert.ok(!res.text.includes('"name": "keydesk"') && res.text !== packageJson, `${path} leaked a file`);
    }
  });

  it("hands an export out once at its download address, with the token, never in the bridge answer", async () => {
    const created = await bridgeCall("keys.create", { request: { name: "=exported" } });
    const secret = (created.json as BridgeResult<ApiKeyDto>).ok
      ? (created.json as { value: ApiKeyDto }).value.publicApiKey
      : "";
    const answer = await bridgeCall("keys.export", { format: "csv", withPublicApiKey: true });
    assert.ok(!answer.text.includes(secret), "the bridge answer holds no publicApiKey");
    const { url } = (answer.json as { value: { url: string } }).value;
    assert.match(url, /^\/download\/[0-9a-f]{32}$/);
    assert.equal((await request(host.baseUrl, { path: url })).status, 401);
    assert.equal((await request(host.baseUrl, { path: `${url}?token=wrong` })).status, 403);
    const file = await request(host.baseUrl, { path: `${url}?token=${host.token}` });
    assert.equal(file.status, 200);
    assert.equal(file.headers["content-type"], "text/csv; charset=utf-8");
    assert.match(
      String(file.headers["content-disposition"]),
      /^attachment; filename="keydesk-[\w.-]+-[\w.-]+-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    assert.match(file.text, /,'=exported,/);
    assert.ok(file.text.includes(secret), "asked with the publicApiKey: the file has it");
    assert.equal(
      (await request(host.baseUrl, { path: `${url}?token=${host.token}` })).status,
      404,
      "once only",
    );
  });

  it("takes a backup to restore as an upload, with the token header only, and answers its id", async () => {
    const upload = (headers: Record<string, string>, method = "POST") =>
      fetch(`${host.baseUrl}/upload/backup`, {
        method,
        headers: { "keydesk-file-name": encodeURIComponent("my backup.kdbackup"), ...headers },
        ...(method === "POST" && { body: "not a backup at all" }),
      });
    assert.equal((await upload({})).status, 401);
    assert.equal((await upload({ [TOKEN_HEADER]: "wrong" })).status, 403);
    assert.equal((await upload({ [TOKEN_HEADER]: host.token }, "GET")).status, 405);
    const answer = await upload({ [TOKEN_HEADER]: host.token });
    assert.equal(answer.status, 200);
    const { uploadId } = ((await answer.json()) as { value: { uploadId: string } }).value;
    assert.match(uploadId, /^[0-9a-f]{32}$/);
    const inspected = await bridgeCall("backup.inspect", { source: { kind: "upload", uploadId } });
    assert.deepEqual(
      (inspected.json as { error: { text: string } }).error.text,
      "my backup.kdbackup cannot be restored: it is not a Keydesk backup file (or its beginning is damaged)",
    );
  });

  it("refuses an upload larger than the bound before reading it", async () => {
    const status = await new Promise<number | undefined>((resolveStatus, reject) => {
      const req = http.request(`${host.baseUrl}/upload/backup`, {
        method: "POST",
        headers: { [TOKEN_HEADER]: host.token, "content-length": String(2 * 1024 ** 3) },
      });
      req.on("response", (res) => {
        resolveStatus(res.statusCode);
        res.resume();
        req.destroy();
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    assert.equal(status, 413);
  });

  it("streams the core's events to the page as server-sent events", async () => {
    const events: BridgeEvent[] = [];
    const stream = await new Promise<http.IncomingMessage>((resolveStream, reject) => {
      http.get(`${host.baseUrl}/bridge/events?token=${host.token}`, resolveStream).on("error", reject);
    });
    try {
      assert.equal(stream.statusCode, 200);
      assert.match(stream.headers["content-type"] ?? "", /^text\/event-stream/);
      const gotEvent = new Promise<void>((resolveEvent) => {
        const parser = createParser({
          onEvent: (message) => {
            events.push(JSON.parse(message.data) as BridgeEvent);
            resolveEvent();
          },
        });
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => parser.feed(chunk));
      });
      const activated = await bridgeCall("profiles.activate", { id: "local" });
      assert.ok((activated.json as BridgeResult<unknown>).ok, activated.text);
      await gotEvent;
      assert.deepEqual(events[0], { type: "profile-changed", activeProfileId: "local" });
    } finally {
      stream.destroy();
    }
  });

  it("refuses the event stream without the token", async () => {
    const res = await request(host.baseUrl, { path: "/bridge/events" });
    assert.equal(res.status, 401);
  });

  it("stops on SIGTERM with exit code 0, having printed nothing more, though a stream is asked for meanwhile", async () => {
    // As a page's EventSource reconnecting over a kept-alive socket while the host stops: the
    // head arrives in two parts, the second after SIGTERM.
    const raw = await connectRaw(host.port);
    raw.socket.write(`GET /bridge/events?token=${host.token} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
    const stopping = host.stop("SIGTERM");
    await new Promise((resolveWait) => setTimeout(resolveWait, 300));
    raw.socket.write("\r\n");
    const answer = await within(5000, "the answer to a stream asked for while stopping", raw.answer());
    assert.equal(answer.status, 503, raw.received());
    assert.equal(answer.headers.connection, "close");
    assert.deepEqual((answer.json as BridgeResult<never>).ok, false);
    const { code, signal } = await stopping;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, host.stderr());
    assert.equal(host.stdoutLines.length, 1);
  });
});
