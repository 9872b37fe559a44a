import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./keyServiceProcess.ts";

/**
 * The build output (`npm run build`) that the tests of the built app load: the paths Electron
 * itself uses (package.json "main", and the preload and page that the main bundle points at).
 */
export const BUILT = {
  main: join(REPO_ROOT, "out", "main", "index.js"),
  preload: join(REPO_ROOT, "out", "preload", "index.cjs"),
  renderer: join(REPO_ROOT, "out", "renderer", "index.html"),
} as const;

/**
 * Fails with one clear line when a part of the build is missing. These tests exist to check the
 * build output, so a missing build is a failure, not a skip (`npm test` builds before it tests).
 */
export function assertBuilt(...files: string[]): void {
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`${missing.join(", ")} missing: run "npm run build" first`);
  }
}
