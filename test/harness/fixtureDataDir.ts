import { chmodSync, cpSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./keyServiceProcess.ts";

/**
 * A data directory written by Keydesk at commit f31ab92 (schema 3, secrets sealed with
 * AES-256-GCM; made by its make.mjs, what that version answered in written.json).
 */
export const F31AB92_FIXTURE = join(REPO_ROOT, "test/fixtures/data-f31ab92");

/** Copies it into `dir` with the modes the service wants (a clone checks files out with the umask's). */
export function copyF31ab92DataDir(dir: string): void {
  cpSync(F31AB92_FIXTURE, dir, { recursive: true });
  for (const file of ["data.key", "keydesk.db"]) chmodSync(join(dir, file), 0o600);
}
