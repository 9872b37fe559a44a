// The browser host's guards, as pure functions: the session token, the static file paths,
// the content types. No I/O here: unit-tested in plain Node.

import { randomBytes, timingSafeEqual } from "node:crypto";
import { extname, resolve, sep } from "node:path";

/** A fresh session token: 32 random bytes, base64url (43 characters). */
export function newSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Whether `presented` is the session token, compared in constant time. Anything that is not a
 * string (absent header, repeated header) does not match.
 */
export function tokenMatches(presented: unknown, token: string): boolean {
  if (typeof presented !== "string" || token.length === 0) {
    return false;
  }
  const a = Buffer.from(presented, "utf8");
  const b = Buffer.from(token, "utf8");
  // timingSafeEqual needs equal lengths; the length of a token is no secret.
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The file under `rootDir` that the URL path `urlPath` (the part before "?", still
 * percent-encoded) names, or null when it would leave `rootDir` or is malformed.
 * "/" is index.html.
 */
export function resolveStaticPath(rootDir: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (!decoded.startsWith("/") || decoded.includes("\0") || decoded.includes("\\")) {
    return null;
  }
  const root = resolve(rootDir);
  const relative = decoded === "/" ? "index.html" : decoded.slice(1);
  const candidate = resolve(root, relative);
  return candidate.startsWith(root + sep) ? candidate : null;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** Content-Type of a served file, by extension; unknown ones are opaque bytes. */
export function contentTypeOf(filePath: string): string {
  return CONTENT_TYPES[extname(filePath).toLowerCase()] ?? "application/octet-stream";
}

/**
 * Whether the Host header names this server (loopback address or localhost, on its port):
 * refuses DNS-rebinding requests that reach 127.0.0.1 under a foreign name.
 */
export function isAllowedHost(hostHeader: string | undefined, port: number): boolean {
  if (hostHeader === undefined) {
    return false;
  }
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  return allowed.includes(hostHeader.toLowerCase());
}
