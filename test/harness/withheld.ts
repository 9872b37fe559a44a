/**
 * Parts of the machine a test run is told to do without, though they may be installed:
 * KEYDESK_TEST_WITHOUT="chromium postgresql" (spaces or commas). CI's first job plays a new user's
 * machine without the optional system packages; where the CI machine has them anyway, this keeps the
 * first job to what such a machine runs, the skips included (the second job runs everything).
 */
export type WithholdablePart = "chromium" | "postgresql";

/** Why the tests must do without `part` here, or undefined when they may use it. */
export function withheld(part: WithholdablePart): string | undefined {
  const parts = (process.env.KEYDESK_TEST_WITHOUT ?? "").split(/[\s,]+/);
  return parts.includes(part) ? `${part} withheld from this run (KEYDESK_TEST_WITHOUT)` : undefined;
}
