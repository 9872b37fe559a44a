import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ACCOUNT_USAGE,
  BACKUP_USAGE,
  CHECK_USAGE,
  KEYS_USAGE,
  MIGRATE_USAGE,
  SERVE_USAGE,
} from "../../../electron/cli/usage.ts";
import { runCli } from "../../harness/keyServiceProcess.ts";

/** `key-service COMMAND --help` (or -h) prints that command's usage on stdout and exits 0. */

const [backupUsage, restoreUsage] = BACKUP_USAGE.split("\n") as [string, string];

test("--help and -h after a command print its usage, exit 0, and run nothing", async () => {
  const cases: [string[], string][] = [
    [["serve", "--help"], SERVE_USAGE],
    [["serve", "--port", "0", "-h"], SERVE_USAGE],
    [["account", "--help"], ACCOUNT_USAGE],
    [["account", "add", "-h"], ACCOUNT_USAGE],
    [["keys", "export", "--help"], KEYS_USAGE],
    [["check", "--help"], CHECK_USAGE],
    [["backup", "--help"], backupUsage],
    [["restore", "-h"], restoreUsage],
    [["migrate", "--help"], MIGRATE_USAGE],
  ];
  for (const [args, usage] of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stderr, "", args.join(" "));
    assert.equal(result.stdout, `usage:\n  ${usage.replaceAll("\n", "\n  ")}\n`, args.join(" "));
    assert.doesNotMatch(result.stdout, /listening/);
  }
});

test("an unknown option is still a usage error (exit 2)", async () => {
  const result = await runCli(["serve", "--hlep"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Unknown option '--hlep'/);
});
