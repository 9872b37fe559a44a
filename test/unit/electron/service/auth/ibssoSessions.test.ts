import assert from "node:assert/strict";
import { test } from "node:test";
import {
  isSessionLive,
  MAX_LIVE_SESSIONS,
  newSessionToken,
  SESSION_LIFETIME_MS,
  sessionExpiresAt,
  sessionsToEnd,
} from "../../../../../electron/service/auth/ibssoSessions.ts";

test("a session lives 60 minutes from its creation, not a millisecond more", () => {
  const createdAt = Date.UTC(2026, 0, 1);
  const expiresAt = sessionExpiresAt(createdAt);
  assert.equal(SESSION_LIFETIME_MS, 60 * 60 * 1000);
  assert.equal(isSessionLive(expiresAt, createdAt), true);
  assert.equal(isSessionLive(expiresAt, expiresAt - 1), true);
  assert.equal(isSessionLive(expiresAt, expiresAt), false);
});

test("one more session ends the oldest live ones beyond the limit, none below it", () => {
  const live = (count: number) => Array.from({ length: count }, (_, i) => i);
  assert.equal(MAX_LIVE_SESSIONS, 10);
  assert.deepEqual(sessionsToEnd(live(0)), []);
  assert.deepEqual(sessionsToEnd(live(MAX_LIVE_SESSIONS - 1)), []);
  assert.deepEqual(sessionsToEnd(live(MAX_LIVE_SESSIONS)), [0]);
  // A lowered limit (or sessions a replica made at once) ends every excess one, oldest first.
  assert.deepEqual(sessionsToEnd(live(5), 3), [0, 1, 2]);
});

test("tokens are random UUIDs, each new", () => {
  const tokens = new Set(Array.from({ length: 100 }, newSessionToken));
  assert.equal(tokens.size, 100);
  for (const token of tokens)
    assert.match(token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
