import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { basic, makeTempDir, removeDir, runCli, type ServeProcess, startServe } from "./keyServiceProcess.ts";
import type { PostgresCluster } from "./postgres.ts";

/** The account every replica set starts with (made with the CLI, as docs/team-server.md shows). */
export const REPLICA_OWNER = basic("owner", "owner-password");

export interface Replicas {
  /** The database's connection string (without the replicas' application names). */
  url: string;
  /** The replicas, in the order of `names`. */
  replicas: ServeProcess[];
  /** Stops every replica still running (SIGTERM) and removes their data dir. */
  stop(): Promise<void>;
}

/**
 * A fresh database on `cluster` with the account `owner` (password `owner-password`), and one
 * `key-service serve` per name on it, started at once, with one data key. Each replica's
 * connections carry its name as `application_name`, so a test finds its backends in
 * pg_stat_activity. `env`: more of the replicas' environment (e.g. KEY_SERVICE_METRICS).
 */
export async function startReplicas(
  cluster: PostgresCluster,
  names: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Replicas> {
  const url = await cluster.createDatabase();
  const shared = {
    KEY_SERVICE_DATABASE_URL: url,
    KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64"),
    ...env,
  };
  const added = await runCli(["account", "add", "--username", "owner"], {
    ...shared,
    KEY_SERVICE_PASSWORD: "owner-password",
  });
  assert.equal(added.code, 0, added.stderr);
  const dir = await makeTempDir("keydesk-replicas-");
  const started = await Promise.allSettled(
    names.map((name) =>
      startServe({
        dataDir: dir,
        storeArgs: [],
        env: { ...shared, KEY_SERVICE_DATABASE_URL: `${url}?application_name=${name}` },
      }),
    ),
  );
  const replicas = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stop = async () => {
    for (const replica of replicas)
      if (replica.child.exitCode === null && replica.child.signalCode === null) await replica.stop("SIGTERM");
    await removeDir(dir);
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { url, replicas, stop };
}
