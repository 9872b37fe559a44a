import assert from "node:assert/strict";
import { join, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import {
  contentTypeOf,
  isAllowedHost,
  newSessionToken,
  resolveStaticPath,
  tokenMatches,
} from "../../../../electron/web/hostSecurity.ts";

describe("the browser host's session token", () => {
  it("is 32 random bytes in base64url, different every time", () => {
    const tokens = new Set(Array.from({ length: 50 }, () => newSessionToken()));
    assert.equal(tokens.size, 50);
    for (const token of tokens) {
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token, "base64url").length, 32);
    }
  });

  it("matches only itself", () => {
    const token = newSessionToken();
    assert.equal(tokenMatches(token, token), true);
    assert.equal(tokenMatches(Buffer.from(token).toString("utf8"), token), true);
  });

  it("rejects a wrong, shorter, longer, empty or case-changed token", () => {
    const token = newSessionToken();
    const flipped = (token[0] === "A" ? "B" : "A") + token.slice(1);
    for (const presented of [
      flipped,
      token.slice(0, -1),
      `${token}x`,
      "",
      token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
    ]) {
      assert.equal(tokenMatches(presented, token), false, `accepted ${JSON.stringify(presented)}`);
    }
  });

  it("rejects what is not one string (absent header, repeated header)", () => {
    const token = newSessionToken();
    for (const presented of [undefined, null, 42, [token], [token, token], { token }]) {
      assert.equal(tokenMatches(presented, token), false, `accepted ${JSON.stringify(presented)}`);
    }
  });

  it("never matches when the expected token is empty", () => {
    assert.equal(tokenMatches("", ""), false);
  });
});

describe("static file paths of the browser host", () => {
  const root = resolve("/srv/keydesk/out/renderer");

  it("maps / to index.html and paths to files under the root", () => {
    assert.equal(resolveStaticPath(root, "/"), join(root, "index.html"));
    assert.equal(resolveStaticPath(root, "/index.html"), join(root, "index.html"));
    assert.equal(
      resolveStaticPath(root, "/assets/index-CN8Xf1dT.js"),
      join(root, "assets", "index-CN8Xf1dT.js"),
    );
    assert.equal(resolveStaticPath(`${root}${sep}`, "/assets/a.css"), join(root, "assets", "a.css"));
  });

  it("decodes percent-encoded names", () => {
    assert.equal(resolveStaticPath(root, "/assets/a%20b.js"), join(root, "assets", "a b.js"));
  });

  it("refuses every path that leaves the root, encoded or not", () => {
    const attempts = [
      "/../package.json",
      "/../../etc/passwd",
      "/assets/../../package.json",
      "/%2e%2e/package.json",
      "/%2E%2E/%2E%2E/etc/passwd",
      "/assets/%2e%2e/%2e%2e/package.json",
      "/..%2fpackage.json",
      "/..%2f..%2fetc%2fpasswd",
      "/..",
      "/../renderer-evil/index.html",
    ];
    for (const attempt of attempts) {
      assert.equal(resolveStaticPath(root, attempt), null, `served ${attempt}`);
    }
  });

  it("refuses a root-escaping sibling whose name starts like the root", () => {
    // /srv/keydesk/out/renderer-evil starts with the root's text but is outside it.
    assert.equal(resolveStaticPath(root, "/../renderer-evil/x.js"), null);
  });

  it("refuses backslashes, NUL bytes, malformed escapes and paths not starting with /", () => {
    for (const attempt of [
      "/..\\package.json",
      "/%5c..%5cpackage.json",
      "/index.html%00.js",
      "/%E0%A4%A",
      "index.html",
      "",
    ]) {
      assert.equal(resolveStaticPath(root, attempt), null, `served ${JSON.stringify(attempt)}`);
    }
  });

  it("treats the root itself (no file) as nothing to serve", () => {
    assert.equal(resolveStaticPath(root, "/."), null);
    assert.equal(resolveStaticPath(root, "/assets/.."), null);
  });
});

describe("content types of served files", () => {
  it("names the types of the renderer's files", () => {
    assert.equal(contentTypeOf("/x/index.html"), "text/html; charset=utf-8");
    assert.equal(contentTypeOf("/x/assets/index-abc.js"), "text/javascript; charset=utf-8");
    assert.equal(contentTypeOf("/x/assets/index-abc.CSS"), "text/css; charset=utf-8");
    assert.equal(contentTypeOf("/x/logo.svg"), "image/svg+xml");
    assert.equal(contentTypeOf("/x/font.woff2"), "font/woff2");
  });

  it("serves unknown types as opaque bytes (never sniffed into HTML or script)", () => {
    assert.equal(contentTypeOf("/x/data.bin"), "application/octet-stream");
    assert.equal(contentTypeOf("/x/noextension"), "application/octet-stream");
  });
});

describe("Host header check (DNS rebinding)", () => {
  it("accepts the loopback address and localhost on the host's port", () => {
    assert.equal(isAllowedHost("127.0.0.1:4000", 4000), true);
    assert.equal(isAllowedHost("localhost:4000", 4000), true);
    assert.equal(isAllowedHost("LOCALHOST:4000", 4000), true);
  });

  it("refuses other names, other ports and a missing header", () => {
    for (const host of [
      "evil.example:4000",
      "127.0.0.1:4001",
      "127.0.0.1",
      "127.0.0.1.evil.example:4000",
      "",
    ]) {
      assert.equal(isAllowedHost(host, 4000), false, `accepted ${host}`);
    }
    assert.equal(isAllowedHost(undefined, 4000), false);
  });
});
