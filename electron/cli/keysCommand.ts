import { writeFile } from "node:fs/promises";
import type { ApiKeyDto } from "../../shared/apiKeys.ts";
import { EXPORT_FORMATS, keyExportWriter } from "../../shared/keyExport.ts";
import { openDataDir } from "../service/dataDir.ts";
import { apiKeyJson } from "../service/domain/apiKeyRecords.ts";
import { scanKeys } from "../service/store/sqliteKeyLister.ts";
import { parseChoice, parseOptions, requireOption, resolveDataDir, UsageError } from "./cliArgs.ts";
import { refuseDatabaseUrl } from "./storageArgs.ts";

/**
 * `key-service keys export`: an account's keys (its own, not its sub-accounts') in creation
 * order, with the desktop's writer (shared/keyExport.ts), from the data dir as `account list`
 * reads it. Metadata only unless --with-public-api-key; --out writes a file only the user can read.
 */
export async function keysCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [subcommand, ...rest] = args;
  if (subcommand !== "export") {
    throw new UsageError(subcommand ? `unknown keys command "${subcommand}"` : "name a keys command");
  }
  const values = parseOptions(rest, {
    "data-dir": { type: "string" },
    "database-url": { type: "string" },
    account: { type: "string" },
    format: { type: "string" },
    "with-public-api-key": { type: "boolean" },
    out: { type: "string" },
  });
  refuseDatabaseUrl("keys export", values, env);
  const username = requireOption(values.account as string | undefined, "--account");
  const format = parseChoice("--format", values.format as string | undefined, EXPORT_FORMATS, "csv");
  const out = values.out as string | undefined;
  if (out !== undefined && out.trim() === "") throw new UsageError("--out must not be empty");
  const withPublicApiKey = values["with-public-api-key"] === true;

  const data = openDataDir({
    dataDir: resolveDataDir(values["data-dir"] as string | undefined, env),
    dataKeyBase64: env.KEY_SERVICE_DATA_KEY,
  });
  const pieces: string[] = [];
  try {
    const account = await data.store.accounts.byUsername(username);
    if (!account) throw new Error(`no account named ${username} (see key-service account list)`);
    const writer = keyExportWriter({ format, withPublicApiKey });
    pieces.push(writer.start());
    for await (const step of scanKeys(data.apiKeys, account.id, {})) {
      const keys = step.keys.map((key) => JSON.parse(apiKeyJson(account.accountKey, key)) as ApiKeyDto);
      pieces.push(writer.keys(keys));
    }
    pieces.push(writer.end());
  } finally {
    data.close();
  }
  if (out === undefined) process.stdout.write(pieces.join(""));
  else await writeFile(out, pieces.join(""), { mode: 0o600 });
}
