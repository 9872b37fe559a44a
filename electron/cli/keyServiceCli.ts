import { ACCOUNT_USAGE, accountCommand } from "./accountCommand.ts";
import { BACKUP_USAGE, backupCommand, restoreCommand } from "./backupCommand.ts";
import { CHECK_USAGE, checkCommand } from "./checkCommand.ts";
import { UsageError } from "./cliArgs.ts";
import { KEYS_USAGE, keysCommand } from "./keysCommand.ts";
import { MIGRATE_USAGE, migrateCommand } from "./migrateCommand.ts";
import { SERVE_USAGE, serveCommand } from "./serveCommand.ts";

/** The headless key service (its entry is key-service.ts): `key-service serve`, `key-service account ...`, `key-service keys export`. */

const USAGE = `usage:\n  ${SERVE_USAGE}\n  ${ACCOUNT_USAGE.replaceAll("\n", "\n  ")}\n  ${KEYS_USAGE}\n  ${CHECK_USAGE}\n  ${BACKUP_USAGE.replaceAll("\n", "\n  ")}\n  ${MIGRATE_USAGE}\n`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serveCommand(rest, process.env);
    case "account":
      return accountCommand(rest, process.env);
    case "check":
      return checkCommand(rest, process.env);
    case "backup":
      return backupCommand(rest, process.env);
    case "restore":
      return restoreCommand(rest, process.env);
    case "keys":
      return keysCommand(rest, process.env);
    case "migrate":
      return migrateCommand(rest, process.env);
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
