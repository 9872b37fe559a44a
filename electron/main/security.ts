// Security policy of the desktop window, as pure functions and constants.
// This module must not import `electron`: it is unit-tested in plain Node.

import { isAbsolute } from "node:path";

/**
 * Content-Security-Policy of the renderer. Sent as a response header by the main process and
 * repeated in renderer/index.html (a page loaded from a file gets no response headers).
 *
 * `style-src 'unsafe-inline'` stays, by decision: Mantine renders its theme's CSS variables in a
 * <style> element and sets each component's variables in style attributes, with values computed
 * at run time, so neither hashes nor a static page's nonce can cover them. Scripts stay 'self'
 * only, so markup that got into the page still cannot run code, and img-src, connect-src and
 * default-src (fonts) admit only the app itself and data: images, so CSS cannot send anything out
 * either; what inline styles leave open is restyling the page.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join("; ");

/**
 * The policy of renderer/index.html's meta tag: the same, less frame-ancestors, which browsers
 * ignore (with a console error) in a meta tag; the response header carries it.
 * @internal Exported for tests.
 */
export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split("; ")
  .filter((directive) => !directive.startsWith("frame-ancestors "))
  .join("; ");

/** The webPreferences of every Keydesk window (a subset of Electron's `WebPreferences`). */
export type SecureWebPreferences = {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  experimentalFeatures: false;
  webviewTag: false;
  spellcheck: false;
};

/** Locked-down webPreferences for a window whose preload script is at `preloadPath` (absolute). */
export function secureWebPreferences(preloadPath: string): SecureWebPreferences {
  if (!isAbsolute(preloadPath)) {
    throw new Error(`The preload script path must be absolute, got "${preloadPath}"`);
  }
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/**
 * The "app origin" of a page URL, the boundary the window and the IPC handlers trust:
 * - http(s): the URL's origin, e.g. `http://127.0.0.1:5173` (scheme, host and port, normalized);
 * - file: file URLs have an opaque origin ("null"), so the boundary is the file itself:
 *   the URL without query and fragment, e.g. `file:///opt/Keydesk/out/renderer/index.html`;
 * - anything else (javascript:, data:, blob:, about:, unparsable): null, never trusted.
 */
export function appOriginOf(pageUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(pageUrl);
  } catch {
    return null;
  }
  switch (url.protocol) {
    case "http:":
    case "https:":
      return url.origin;
    case "file:":
      return `file://${url.host}${url.pathname}`;
    default:
      return null;
  }
}

/** Whether `url` belongs to the app whose app origin (see {@link appOriginOf}) is `appOrigin`. */
function belongsToApp(url: string, appOrigin: string): boolean {
  // A malformed appOrigin (e.g. "null", "", or an origin with a path) trusts nothing.
  if (appOriginOf(appOrigin) !== appOrigin) {
    return false;
  }
  return appOriginOf(url) === appOrigin;
}

/** Whether the window may navigate to `url`: only within the app's own origin. */
export function isAllowedNavigation(url: string, appOrigin: string): boolean {
  return belongsToApp(url, appOrigin);
}

/** Whether an IPC message sent by a frame at `frameUrl` comes from the app's own page. */
export function isTrustedSender(frameUrl: string, appOrigin: string): boolean {
  return belongsToApp(frameUrl, appOrigin);
}
