import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createPrivateFile } from "../../../../../electron/service/crypto/privateFile.ts";

/** A secret's file is created whole, once, readable by its owner only. */

const dir = mkdtempSync(join(tmpdir(), "keydesk-private-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the file is created with the text and mode 0600, and nothing else is left beside it", () => {
  const path = join(dir, "secret.key");
  assert.equal(createPrivateFile(path, "first"), true);
  assert.equal(readFileSync(path, "utf8"), "first\n");
  if (process.platform !== "win32") assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ["secret.key"]);
});

test("a second creation answers false and leaves the first text as it was", () => {
  const path = join(dir, "taken.key");
  createPrivateFile(path, "the winner");
  assert.equal(createPrivateFile(path, "the loser"), false);
  assert.equal(readFileSync(path, "utf8"), "the winner\n");
  assert.deepEqual(readdirSync(dir).sort(), ["secret.key", "taken.key"]);
});
