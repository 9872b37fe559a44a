import type { SyncLinkDto } from "./sync.ts";

/**
 * Which sync links a connection profile's credentials feed, for main (a password edit updates
 * them) and the renderer (a link paused by a 401 points at the profile to edit). zod-free.
 */

/** Base URLs compared as a service would store them: normalized by URL, without trailing slashes. */
export function sameBaseUrl(a: string, b: string): boolean {
  const normal = (url: string) => {
    try {
      return new URL(url).href.replace(/\/+$/, "");
    } catch {
      return url.replace(/\/+$/, "");
    }
  };
  return normal(a) === normal(b);
}

/** Whether a link uses these credentials: the same base URL and username. */
export function linkUses(
  link: Pick<SyncLinkDto, "remote">,
  credentials: { baseUrl: string; username: string },
): boolean {
  return (
    link.remote.username === credentials.username && sameBaseUrl(link.remote.baseUrl, credentials.baseUrl)
  );
}
