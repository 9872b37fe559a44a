// The browser host's cookie: what lets the page's scripts and styles (which carry no custom
// header) and a reload load. It is NOT the session token. Browsers send cookies for 127.0.0.1 to
// every port of 127.0.0.1 (cookies ignore ports), so any other local server the user visits
// receives it. It therefore carries a separate random secret that only lets GET/HEAD fetch the
// built renderer's files, which are public anyway (the same files as in the repository): when it
// leaks to another port, nothing is lost. The bridge and the event stream never accept it.
// Pure functions, no I/O: unit-tested in plain Node.

import { newSessionToken, tokenMatches } from "./hostSecurity.ts";

/** A fresh static-files secret: as random as the session token, and never equal to it. */
export function newAssetSecret(): string {
  return newSessionToken();
}

/**
 * The cookie's name, per port: two hosts on two ports share one cookie jar for 127.0.0.1, and
 * one name would let each overwrite the other's cookie.
 * @internal Exported for tests.
 */
export function assetCookieName(port: number): string {
  return `keydesk_assets_${port}`;
}

/** The Set-Cookie value the page's navigation with ?token= answers. */
export function assetCookieHeader(port: number, secret: string): string {
  // HttpOnly: no script reads it (it would not help one anyway). SameSite=Strict: other sites'
  // requests do not carry it. Path=/: the page and its /assets/ files.
  return `${assetCookieName(port)}=${secret}; Path=/; HttpOnly; SameSite=Strict`;
}

/**
 * The value of cookie `name` in a Cookie header, or undefined.
 * @internal Exported for tests.
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

/**
 * Whether the request's cookie for this port holds the static-files secret (constant-time), or
 * undefined when it has no such cookie.
 */
export function assetCookieMatches(
  cookieHeader: string | undefined,
  port: number,
  secret: string,
): boolean | undefined {
  const presented = cookieValue(cookieHeader, assetCookieName(port));
  return presented === undefined ? undefined : tokenMatches(presented, secret);
}
