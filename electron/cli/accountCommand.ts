import { formatApiDateTime } from "../../shared/datetime.ts";
import { addAccount, changePassword, listAccounts } from "../service/accountAdmin.ts";
import { type DataDir, openDataDir } from "../service/dataDir.ts";
import { parseOptions, requireOption, resolveDataDir, UsageError } from "./cliArgs.ts";

export const ACCOUNT_USAGE = [
  "key-service account add --data-dir DIR --username NAME [--parent PARENT_USERNAME]   (password from KEY_SERVICE_PASSWORD)",
  "key-service account list --data-dir DIR [--json]",
  "key-service account passwd --data-dir DIR --username NAME   (new password from KEY_SERVICE_PASSWORD)",
].join("\n");

async function withDataDir<T>(
  dataDirOption: unknown,
  env: NodeJS.ProcessEnv,
  work: (data: DataDir) => Promise<T>,
) {
  const data = openDataDir({
    dataDir: resolveDataDir(dataDirOption as string | undefined, env),
    dataKeyBase64: env.KEY_SERVICE_DATA_KEY,
  });
  try {
    return await work(data);
  } finally {
    data.close();
  }
}

export async function accountCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [subcommand, ...rest] = args;
  switch (subcommand) {
    case "add": {
      const values = parseOptions(rest, {
        "data-dir": { type: "string" },
        username: { type: "string" },
        parent: { type: "string" },
      });
      const username = requireOption(values.username as string | undefined, "--username");
      const account = await withDataDir(values["data-dir"], env, (data) =>
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
      const values = parseOptions(rest, { "data-dir": { type: "string" }, json: { type: "boolean" } });
      const accounts = await withDataDir(values["data-dir"], env, (data) => listAccounts(data.store));
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
      const values = parseOptions(rest, { "data-dir": { type: "string" }, username: { type: "string" } });
      const username = requireOption(values.username as string | undefined, "--username");
      await withDataDir(values["data-dir"], env, (data) =>
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
