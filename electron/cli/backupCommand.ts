import { BackupFileError } from "../service/backup/backupFileError.ts";
import { idleThisProcess } from "../service/threadPriority.ts";
import { parseChoice, parseOptions, requireOption, resolveDataDir, UsageError } from "./cliArgs.ts";
import { counted } from "./counted.ts";
import { refuseDatabaseUrl } from "./storageArgs.ts";

/** Passphrases shorter than this are refused for new backups: the file may travel far. */
const MIN_PASSPHRASE = 12;

function passphraseOf(env: NodeJS.ProcessEnv, creating: boolean): string {
  const passphrase = env.KEY_SERVICE_BACKUP_PASSPHRASE;
  if (passphrase === undefined || passphrase === "")
    throw new UsageError("set the passphrase in KEY_SERVICE_BACKUP_PASSPHRASE (never on the command line)");
  if (creating && [...passphrase].length < MIN_PASSPHRASE)
    throw new UsageError(`the backup passphrase must be at least ${MIN_PASSPHRASE} characters`);
  return passphrase;
}

const PRIORITIES = ["idle", "normal"] as const;

/** `key-service backup` (while serve runs, too) and `key-service restore`. */
export async function backupCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const values = parseOptions(args, {
    "data-dir": { type: "string" },
    "database-url": { type: "string" },
    out: { type: "string" },
    priority: { type: "string" },
  });
  refuseDatabaseUrl("backup", values, env);
  const out = requireOption(values.out as string | undefined, "--out");
  const priority = parseChoice("--priority", values.priority as string | undefined, PRIORITIES, "idle");
  // A backup usually runs beside a serving service: it takes only CPU time the service leaves.
  // Lowered before the backup's modules load (their loading is CPU time too).
  if (priority === "idle") idleThisProcess();
  const { backupDataDir } = await import("../service/backup/backupDataDir.ts");
  const result = await backupDataDir({
    dataDir: resolveDataDir(values["data-dir"] as string | undefined, env),
    out,
    passphrase: passphraseOf(env, true),
    dataKeyBase64: env.KEY_SERVICE_DATA_KEY,
  });
  process.stdout.write(
    `backed up ${counted(result.keys, "key")} of ${counted(result.accounts, "account")} to ${result.file} (${result.bytes} bytes)\n`,
  );
}

export async function restoreCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const values = parseOptions(args, {
    in: { type: "string" },
    "data-dir": { type: "string" },
    "database-url": { type: "string" },
    force: { type: "boolean" },
  });
  refuseDatabaseUrl("restore", values, env);
  const input = requireOption(values.in as string | undefined, "--in");
  try {
    const { restoreDataDir } = await import("../service/backup/backupDataDir.ts");
    const result = await restoreDataDir({
      input,
      dataDir: resolveDataDir(values["data-dir"] as string | undefined, env),
      passphrase: passphraseOf(env, false),
      force: values.force === true,
      dataKeyBase64: env.KEY_SERVICE_DATA_KEY,
    });
    process.stdout.write(
      `restored ${counted(result.keys, "key")} of ${counted(result.accounts, "account")} (backup of ${result.createdAt}) into ${result.dataDir}` +
        (result.previous ? `; the data that was there is in ${result.previous}` : "") +
        "\n",
    );
  } catch (error) {
    if (error instanceof BackupFileError) throw new Error(`cannot restore ${input}: ${error.message}`);
    const { code, path } = error as NodeJS.ErrnoException;
    if ((code === "ENOENT" || code === "ENOTDIR") && path === input)
      throw new Error(`cannot restore ${input}: there is no such file`);
    throw error;
  }
}
