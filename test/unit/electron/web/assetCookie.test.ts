import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  assetCookieHeader,
  assetCookieMatches,
  assetCookieName,
  cookieValue,
  newAssetSecret,
} from "../../../../electron/web/assetCookie.ts";

describe("the browser host's static-files cookie", () => {
  it("holds a fresh 32-byte secret, HttpOnly and SameSite=Strict, named per port", () => {
    const secret = newAssetSecret();
    assert.equal(Buffer.from(secret, "base64url").length, 32);
    assert.notEqual(newAssetSecret(), secret);
    assert.equal(assetCookieName(4321), "keydesk_assets_4321");
    assert.equal(
      assetCookieHeader(4321, secret),
      `keydesk_assets_4321=${secret}; Path=/; HttpOnly; SameSite=Strict`,
    );
  });

  it("matches only its own port's cookie with the secret, and says when there is none", () => {
    const secret = newAssetSecret();
    assert.equal(assetCookieMatches(`a=1; keydesk_assets_4321=${secret}`, 4321, secret), true);
    assert.equal(assetCookieMatches(`keydesk_assets_4321=${secret}x`, 4321, secret), false);
    assert.equal(assetCookieMatches(`keydesk_assets_4322=${secret}`, 4321, secret), undefined);
    assert.equal(assetCookieMatches(undefined, 4321, secret), undefined);
  });

  it("reads a cookie's value out of a Cookie header", () => {
    assert.equal(cookieValue("a=1; b = 2 ;c=x=y", "b"), "2");
    assert.equal(cookieValue("a=1; c=x=y", "c"), "x=y");
    assert.equal(cookieValue("ab=1", "a"), undefined);
  });
});
