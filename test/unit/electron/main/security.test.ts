import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  appOriginOf,
  CONTENT_SECURITY_POLICY,
  isAllowedNavigation,
  isTrustedSender,
  META_CONTENT_SECURITY_POLICY,
  secureWebPreferences,
} from "../../../../electron/main/security.ts";

const DEV_ORIGIN = "http://127.0.0.1:5173";
const FILE_APP = "file:///opt/Keydesk/resources/app.asar/out/renderer/index.html";

/** The CSP as a map directive -> sources. */
function parseCsp(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(";")) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) {
      assert.ok(!directives.has(name), `directive ${name} appears twice`);
      directives.set(name, sources);
    }
  }
  return directives;
}

/** URLs no app origin may ever accept. */
const ALWAYS_HOSTILE = [
  "javascript:alert(1)",
  "JavaScript:alert(document.domain)",
  "data:text/html,<script>alert(1)</script>",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "about:blank",
  "blob:http://127.0.0.1:5173/7a1f0c3e-0000-4000-8000-000000000000",
  "chrome://settings",
  "",
  "not a url",
  "//127.0.0.1:5173/",
];

describe("secureWebPreferences", () => {
  const preferences = secureWebPreferences("/opt/Keydesk/out/preload/index.cjs");

  it("keeps the preload path", () => {
    assert.equal(preferences.preload, "/opt/Keydesk/out/preload/index.cjs");
  });

  it("isolates and sandboxes the renderer", () => {
    assert.equal(preferences.contextIsolation, true);
    assert.equal(preferences.sandbox, true);
  });

  it("gives no Node.js to pages or workers", () => {
    assert.equal(preferences.nodeIntegration, false);
    assert.equal(preferences.nodeIntegrationInWorker, false);
  });

  it("keeps web security on and refuses insecure content", () => {
    assert.equal(preferences.webSecurity, true);
    assert.equal(preferences.allowRunningInsecureContent, false);
  });

  it("disables experimental features, <webview> and the spellchecker", () => {
    assert.equal(preferences.experimentalFeatures, false);
    assert.equal(preferences.webviewTag, false);
    assert.equal(preferences.spellcheck, false);
  });

  it("sets nothing else (no flag slips in unreviewed)", () => {
    assert.deepEqual(Object.keys(preferences).sort(), [
      "allowRunningInsecureContent",
      "contextIsolation",
      "experimentalFeatures",
      "nodeIntegration",
      "nodeIntegrationInWorker",
      "preload",
      "sandbox",
      "spellcheck",
      "webSecurity",
      "webviewTag",
    ]);
  });

  it("refuses a relative preload path", () => {
    assert.throws(() => secureWebPreferences("out/preload/index.cjs"), /absolute/);
    assert.throws(() => secureWebPreferences(""), /absolute/);
  });
});

describe("CONTENT_SECURITY_POLICY", () => {
  const csp = parseCsp(CONTENT_SECURITY_POLICY);

  it("never allows eval or inline scripts", () => {
    assert.ok(!CONTENT_SECURITY_POLICY.includes("'unsafe-eval'"));
    assert.ok(!CONTENT_SECURITY_POLICY.includes("'wasm-unsafe-eval'"));
    assert.ok(!csp.get("script-src")?.includes("'unsafe-inline'"));
  });

  it("loads scripts from the app itself only", () => {
    assert.deepEqual(csp.get("script-src"), ["'self'"]);
    assert.deepEqual(csp.get("default-src"), ["'self'"]);
  });

  it("forbids plugins, <base>, framing and form posts", () => {
    assert.deepEqual(csp.get("object-src"), ["'none'"]);
    assert.deepEqual(csp.get("base-uri"), ["'none'"]);
    assert.deepEqual(csp.get("frame-ancestors"), ["'none'"]);
    assert.deepEqual(csp.get("form-action"), ["'none'"]);
  });

  it("lets the renderer connect to its own origin only", () => {
    assert.deepEqual(csp.get("connect-src"), ["'self'"]);
  });

  it("is the policy of renderer/index.html too, less frame-ancestors (which a meta tag cannot carry)", () => {
    const html = readFileSync(new URL("../../../../renderer/index.html", import.meta.url), "utf8");
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
    assert.ok(meta, "renderer/index.html has a Content-Security-Policy meta tag");
    assert.equal(meta[1], META_CONTENT_SECURITY_POLICY);
    assert.equal(
      META_CONTENT_SECURITY_POLICY,
      CONTENT_SECURITY_POLICY.replace("; frame-ancestors 'none'", ""),
    );
  });
});

describe("appOriginOf", () => {
  it("answers the normalized origin of an http(s) URL", () => {
    assert.equal(appOriginOf("http://127.0.0.1:5173/index.html#/keys"), DEV_ORIGIN);
    assert.equal(appOriginOf("HTTP://LOCALHOST:80/x"), "http://localhost");
    assert.equal(appOriginOf("https://keys.example.com/"), "https://keys.example.com");
  });

  it("answers the file itself for a file URL", () => {
    assert.equal(appOriginOf(`${FILE_APP}?x=1#/keys`), FILE_APP);
  });

  it("answers null for schemes that have no trustworthy origin", () => {
    for (const url of ALWAYS_HOSTILE) {
      assert.equal(appOriginOf(url), null, url);
    }
  });
});

for (const [name, check] of [
  ["isAllowedNavigation", isAllowedNavigation],
  ["isTrustedSender", isTrustedSender],
] as const) {
  describe(name, () => {
    describe("when the app is served over http (dev server)", () => {
      it("accepts pages of the app's origin", () => {
        assert.equal(check("http://127.0.0.1:5173/", DEV_ORIGIN), true);
        assert.equal(check("http://127.0.0.1:5173/index.html#/keys?id=1", DEV_ORIGIN), true);
        assert.equal(check("http://127.0.0.1:5173/keys?name=a", DEV_ORIGIN), true);
      });

      it("rejects other origins: scheme, host or port differ", () => {
        assert.equal(check("https://127.0.0.1:5173/", DEV_ORIGIN), false);
        assert.equal(check("http://127.0.0.1:5174/", DEV_ORIGIN), false);
        assert.equal(check("http://localhost:5173/", DEV_ORIGIN), false);
        assert.equal(check("http://127.0.0.1/", DEV_ORIGIN), false);
        assert.equal(check("https://evil.example/", DEV_ORIGIN), false);
      });

      it("rejects origin prefix and userinfo tricks", () => {
        assert.equal(check("http://127.0.0.1:5173.evil.com/", DEV_ORIGIN), false);
        assert.equal(check("http://127.0.0.1:51730/", DEV_ORIGIN), false);
        assert.equal(check("http://127.0.0.1:5173@evil.com/", DEV_ORIGIN), false);
        assert.equal(check("http://evil.com/?http://127.0.0.1:5173", DEV_ORIGIN), false);
        assert.equal(check("http://evil.com/http://127.0.0.1:5173/", DEV_ORIGIN), false);
      });

      it("rejects file URLs", () => {
        assert.equal(check("file:///etc/passwd", DEV_ORIGIN), false);
        assert.equal(check(FILE_APP, DEV_ORIGIN), false);
      });

      it("rejects javascript:, data:, blob:, about: and junk", () => {
        for (const url of ALWAYS_HOSTILE) {
          assert.equal(check(url, DEV_ORIGIN), false, url);
        }
      });
    });

    describe("when the app is loaded from a file (built app)", () => {
      it("accepts the app's own page, whatever its query or fragment", () => {
        assert.equal(check(FILE_APP, FILE_APP), true);
        assert.equal(check(`${FILE_APP}#/keys`, FILE_APP), true);
      });

      it("rejects any other file", () => {
        assert.equal(check("file:///etc/passwd", FILE_APP), false);
        assert.equal(
          check("file:///opt/Keydesk/resources/app.asar/out/renderer/other.html", FILE_APP),
          false,
        );
        assert.equal(check(`${FILE_APP}/../../../../../etc/passwd`, FILE_APP), false);
        assert.equal(
          check("file://evil-host/opt/Keydesk/resources/app.asar/out/renderer/index.html", FILE_APP),
          false,
        );
      });

      it("rejects http(s) pages", () => {
        assert.equal(check("http://127.0.0.1:5173/", FILE_APP), false);
        assert.equal(check("https://evil.example/index.html", FILE_APP), false);
      });

      it("rejects javascript:, data:, blob:, about: and junk", () => {
        for (const url of ALWAYS_HOSTILE) {
          assert.equal(check(url, FILE_APP), false, url);
        }
      });
    });

    it("trusts nothing when the app origin itself is malformed", () => {
      for (const appOrigin of ["", "null", "*", "http://127.0.0.1:5173/", "javascript:alert(1)"]) {
        assert.equal(check("http://127.0.0.1:5173/", appOrigin), false, appOrigin);
        assert.equal(check(appOrigin, appOrigin), false, appOrigin);
      }
    });
  });
}
