/**
 * Loaded with `--import` into a service process a test starts (clockBehindEnv), so that it runs as
 * on a machine whose clock is behind: Date.now() answers KEYDESK_TEST_CLOCK_BEHIND_MS earlier. The
 * service reads its time through Date.now(), taken when it starts, so this is set before it.
 */
const behind = Number(process.env.KEYDESK_TEST_CLOCK_BEHIND_MS ?? 0);
if (behind > 0) {
  const realNow = Date.now;
  Date.now = () => realNow() - behind;
}
