import { randomBytes } from "node:crypto";
import type { TestContext } from "node:test";
import { type DataDir, openDataDir } from "../../electron/service/dataDir.ts";
import { newAccountKey } from "../../electron/service/domain/identifiers.ts";
import { makeTempDir, removeDir } from "./keyServiceProcess.ts";

/** A new data dir under a fresh data key, closed and removed when the test ends. */
export async function tempDataDir(t: TestContext): Promise<DataDir> {
  const dir = await makeTempDir();
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  t.after(async () => {
    data.close();
    await removeDir(dir);
  });
  return data;
}

/** An account written straight into the store (no password anyone could use). */
export function addStoredAccount(data: DataDir, username: string, parentId: number | null = null) {
  return data.accounts.insert({
    accountKey: newAccountKey(),
    username,
    passwordHash: "h",
    parentId,
    createdAt: 0,
  });
}
