import { forbidden } from "../service/errors.ts";

/**
 * Which remote base URLs links may point to (`serve --sync-remote-allow`). A link makes the service
 * itself send requests to its remote, so on a shared team server any account could otherwise point
 * it at internal addresses or at a hostile server. Unset (the desktop's embedded service), any
 * http(s) URL may be linked.
 *
 * A pattern is an origin (`https://keys.example.com`: any path there) or a URL prefix
 * (`https://gw.example.com/keys`: that path and below, on whole path segments, so `/keys-evil`
 * does not match). Scheme, host and port are compared as the URL parser normalizes them (case,
 * default ports), so spelling tricks (`@`, upper case, `:443`) neither slip through nor get refused.
 */
export interface RemoteAllowList {
  readonly patterns: readonly string[];
  allows(baseUrl: string): boolean;
}

interface Pattern {
  origin: string;
  /** Path prefix without a trailing slash; "" for a whole origin. */
  path: string;
}

/** Parses the patterns; throws an Error naming the first invalid one. */
export function remoteAllowList(patterns: readonly string[]): RemoteAllowList {
  const parsed = patterns.map(parsePattern);
  return {
    patterns,
    allows(baseUrl) {
      let url: URL;
      try {
        url = new URL(baseUrl);
      } catch {
        return false;
      }
      const path = url.pathname.replace(/\/+$/, "");
      return parsed.some(
        (pattern) =>
          url.origin === pattern.origin &&
          (pattern.path === "" || path === pattern.path || path.startsWith(`${pattern.path}/`)),
      );
    },
  };
}

function parsePattern(pattern: string): Pattern {
  let url: URL;
  try {
    url = new URL(pattern);
  } catch {
    throw new Error(`"${pattern}" is not a URL; give an origin such as https://keys.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`"${pattern}" is not an http or https URL`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new Error(`"${pattern}" must be an origin or a URL prefix, without credentials, query or fragment`);
  }
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, "") };
}

/** The 403 for a link to a remote outside the list. */
export function refuseRemote(baseUrl: string, allowList: RemoteAllowList) {
  return forbidden(
    `this service links only to remotes under ${allowList.patterns.join(", ")} (its --sync-remote-allow option), not ${baseUrl}`,
  );
}
