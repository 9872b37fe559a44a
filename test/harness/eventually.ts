import assert from "node:assert/strict";

/**
 * Polls `check` every 100 ms until it answers something other than undefined, for things that
 * happen in the background (a sync run, a timer); fails naming `what` after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
