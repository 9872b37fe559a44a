import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/**
 * `npm ci` installs exactly package-lock.json and refuses a lock that is out of step with
 * package.json or misses a package some entry asks for (every platform's optional binary
 * included: npm resolves them all, whatever machine it runs on).
 */

type Ranges = Record<string, string>;
type LockEntry = { dependencies?: Ranges; optionalDependencies?: Ranges; devDependencies?: Ranges };

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as LockEntry;
const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

test("the lockfile's root lists exactly package.json's dependencies, with the same ranges", () => {
  const root = lock.packages[""] as LockEntry;
  for (const field of ["dependencies", "optionalDependencies", "devDependencies"] as const)
    assert.deepEqual(
      root[field] ?? {},
      pkg[field] ?? {},
      `${field} of package.json and package-lock.json differ`,
    );
});

/** Where Node would find `name` from the package at `from`: its own node_modules, then its parents'. */
function resolves(from: string, name: string): boolean {
  for (let at = from; ; ) {
    if (`${at ? `${at}/` : ""}node_modules/${name}` in lock.packages) return true;
    if (!at) return false;
    const parent = at.lastIndexOf("/node_modules/");
    at = parent === -1 ? "" : at.slice(0, parent);
  }
}

test("every dependency of every locked package, optional platform binaries included, is locked", () => {
  assert.ok(lock.lockfileVersion >= 3, `lockfileVersion ${lock.lockfileVersion}: npm 11 writes 3`);
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const wanted = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...(path === "" && entry.devDependencies),
    };
    for (const name of Object.keys(wanted))
      if (!resolves(path, name)) missing.push(`${name} (for ${path || "the root"})`);
  }
  assert.deepEqual(missing, [], "run `npm install` with npm 11 and commit package-lock.json");
});

test("Biome's binary for every platform it ships is in the lock, not only this machine's", () => {
  const biome = lock.packages["node_modules/@biomejs/biome"] as LockEntry;
  const platforms = Object.keys(biome.optionalDependencies ?? {});
  assert.ok(
    platforms.some((name) => name.includes("android")) && platforms.length >= 8,
    platforms.join(", "),
  );
  for (const name of platforms) assert.ok(`node_modules/${name}` in lock.packages, `${name} is not locked`);
});
