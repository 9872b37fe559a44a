import { UsageError } from "./cliArgs.ts";
import { ACCOUNT_USAGE, BACKUP_USAGE, CHECK_USAGE, KEYS_USAGE, MIGRATE_USAGE, SERVE_USAGE } from "./usage.ts";

/** The headless key service (its entry is key-service.ts): `key-service serve`, `key-service account ...`, `key-service keys export`. */

const USAGE = `usage:\n  ${SERVE_USAGE}\n  ${ACCOUNT_USAGE.replaceAll("\n", "\n  ")}\n  ${KEYS_USAGE}\n  ${CHECK_USAGE}\n  ${BACKUP_USAGE.replaceAll("\n", "\n  ")}\n  ${MIGRATE_USAGE}\n`;

/** Each command's own usage, for `key-service COMMAND --help` (or -h). */
const COMMAND_USAGE: Record<string, string> = {
  serve: SERVE_USAGE,
  account: ACCOUNT_USAGE,
  keys: KEYS_USAGE,
  check: CHECK_USAGE,
  backup: BACKUP_USAGE.split("\n")[0] as string,
  restore: BACKUP_USAGE.split("\n")[1] as string,
  migrate: MIGRATE_USAGE,
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const usage = command === undefined ? undefined : COMMAND_USAGE[command];
  // Asked before the command parses its options, which would refuse --help as unknown.
  if (usage !== undefined && rest.some((arg) => arg === "--help" || arg === "-h")) {
    process.stdout.write(`usage:\n  ${usage.replaceAll("\n", "\n  ")}\n`);
    return;
  }
  switch (command) {
    // Each command's modules are loaded when it runs: an `account list` or a `check` does not
    // load the HTTP server, the sync engine or the PostgreSQL client, and starts sooner.
    case "serve":
      return (await import("./serveCommand.ts")).serveCommand(rest, process.env);
    case "account":
      return (await import("./accountCommand.ts")).accountCommand(rest, process.env);
    case "check":
      return (await import("./checkCommand.ts")).checkCommand(rest, process.env);
    case "backup":
      return (await import("./backupCommand.ts")).backupCommand(rest, process.env);
    case "restore":
      return (await import("./backupCommand.ts")).restoreCommand(rest, process.env);
    case "keys":
      return (await import("./keysCommand.ts")).keysCommand(rest, process.env);
    case "migrate":
      return (await import("./migrateCommand.ts")).migrateCommand(rest, process.env);
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return;
    default:
      throw new UsageError(command ? `unknown command "${command}"` : "name a command");
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  if (error instanceof UsageError) {
    process.stderr.write(`key-service: ${error.message}\n${USAGE}`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`key-service: ${error.message}\n`);
    process.exitCode = 1;
  }
});
