import { formatApiDateTime } from "../../shared/datetime.ts";
import { addAccount, changePassword, listAccounts } from "../service/accountAdmin.ts";
import { openStorage } from "../service/openStorage.ts";
import type { ServiceStorage } from "../service/serviceStorage.ts";
import { parseOptions, requireOption, UsageError } from "./cliArgs.ts";
import { STORAGE_OPTIONS, storageOptionsOf } from "./storageArgs.ts";

/** Runs `work` on the data dir or database the options name (the data key checked as serve checks it). */
async function withStorage<T>(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  work: (data: ServiceStorage) => Promise<T>,
) {
  const data = await openStorage(storageOptionsOf(values, env));
  try {
    return await work(data);
  } finally {
    await data.close();
  }
}

export async function accountCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [subcommand, ...rest] = args;
  switch (subcommand) {
    case "add": {
      const values = parseOptions(rest, {
        ...STORAGE_OPTIONS,
        username: { type: "string" },
        parent: { type: "string" },
      });
      const username = requireOption(values.username as string | undefined, "--username");
      const account = await withStorage(values, env, (data) =>
        addAccount(data.store, {
          username,
          password: env.KEY_SERVICE_PASSWORD,
          parentUsername: values.parent as string | undefined,
        }),
      );
      process.stdout.write(`${account.accountKey}\n`);
      return;
    }
    case "list": {
      const values = parseOptions(rest, { ...STORAGE_OPTIONS, json: { type: "boolean" } });
      const accounts = await withStorage(values, env, (data) => listAccounts(data.store));
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ accounts }, null, 2)}\n`);
        return;
      }
      const rows = accounts.map((a) => [
        a.accountKey,
        a.username,
        a.parentUsername ?? "-",
        formatApiDateTime(a.createdAt),
      ]);
      const table = [["ACCOUNT KEY", "USERNAME", "PARENT", "CREATED"], ...rows];
      const widths =
        table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] as string).length))) ?? [];
      for (const row of table) {
        process.stdout.write(
          `${row
            .map((cell, column) => cell.padEnd(widths[column] as number))
            .join("  ")
            .trimEnd()}\n`,
        );
      }
      return;
    }
    case "passwd": {
      const values = parseOptions(rest, { ...STORAGE_OPTIONS, username: { type: "string" } });
      const username = requireOption(values.username as string | undefined, "--username");
      await withStorage(values, env, (data) =>
        changePassword(data.store, username, env.KEY_SERVICE_PASSWORD),
      );
      process.stderr.write(`key-service: password of ${username} changed\n`);
      return;
    }
    default:
      throw new UsageError(
        subcommand ? `unknown account command "${subcommand}"` : "name an account command",
      );
  }
}
