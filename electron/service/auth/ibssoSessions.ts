import { randomUUID } from "node:crypto";

/**
 * The rules of IBSSO sessions (the provider's `POST /auth/1/session`): a session stands for its
 * account's Basic credentials until it ends, and its token is shown once, when it is created.
 *
 * The provider's documentation says a session expires 60 minutes after it is created and that a
 * new token before then needs the old one destroyed; it names no number of live sessions. Here an
 * account keeps at most MAX_LIVE_SESSIONS: creating one more ends the oldest (an app that logs in
 * again without logging out keeps working, and the table stays bounded), never a 429.
 */

/**
 * How long a session lives from its creation.
 * @internal Exported for tests.
 */
export const SESSION_LIFETIME_MS = 60 * 60 * 1000;

/**
 * Live sessions one account keeps at most.
 * @internal Exported for tests.
 */
export const MAX_LIVE_SESSIONS = 10;

/** A new session's token: random (122 bits), in the provider's shape (a UUID). */
export const newSessionToken = (): string => randomUUID();

/** When a session created at `createdAt` stops being accepted. */
export const sessionExpiresAt = (createdAt: number): number => createdAt + SESSION_LIFETIME_MS;

/** Whether a session that expires at `expiresAt` is still accepted at `now`. */
export const isSessionLive = (expiresAt: number, now: number): boolean => now < expiresAt;

/**
 * The sessions to end so that one more fits: the oldest of the account's live ones (given oldest
 * first) beyond MAX_LIVE_SESSIONS - 1.
 */
export function sessionsToEnd<S>(liveOldestFirst: readonly S[], max = MAX_LIVE_SESSIONS): S[] {
  const excess = liveOldestFirst.length - (max - 1);
  return excess > 0 ? liveOldestFirst.slice(0, excess) : [];
}
