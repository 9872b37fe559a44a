import { performance } from "node:perf_hooks";
import { addAccount } from "../electron/service/accountAdmin.ts";
import { openDataDir } from "../electron/service/dataDir.ts";
import { type ApiKeyFields, fieldsForCreate } from "../electron/service/domain/apiKeyRecords.ts";
import { newKeyId, newPublicApiKey } from "../electron/service/domain/identifiers.ts";
import {
  basic,
  makeTempDir,
  removeDir,
  type ServeProcess,
  startServe,
} from "../test/harness/keyServiceProcess.ts";
import { BenchFailure } from "./lib/timedHttp.ts";

/**
 * One data directory with accounts seeded directly through the service's own stores (much
 * faster than creating keys over HTTP), served by one real `key-service serve` process.
 */

const PASSWORD = "bench-password-0123456789";
/** Sizes of the seeded accounts; each lives in its own account `bench-<size>`. */
export const SEEDED_SIZES = [1_000, 10_000, 100_000] as const;
type SeededSize = (typeof SEEDED_SIZES)[number];

interface SeededAccount {
  username: string;
  authorization: string;
  accountKey: string;
  size: number;
  /** Every publicApiKey of the account, in creation order. */
  publicApiKeys: string[];
}

export interface KeyServiceFixture {
  server: ServeProcess;
  /** An account with no keys at start, for the create benchmark. */
  empty: { username: string; authorization: string; accountKey: string };
  seeded: Map<SeededSize, SeededAccount>;
  seedMs: number;
  close(): Promise<void>;
}

/** Request fields like a client's create would send; a quarter of the keys carry the optional fields. */
function seedFields(index: number): ApiKeyFields {
  const withOptions = index % 4 === 0;
  const fields = fieldsForCreate({
    name: `bench key ${index}`,
    ...(withOptions && {
      allowedIPs: ["10.0.0.0/8", "192.0.2.17"],
      validFrom: "2025-01-01T00:00:00.000+0000",
      validTo: "2035-01-01T00:00:00.000+0000",
    }),
  });
  if (!fields.ok) throw new Error(`seed fields rejected: ${JSON.stringify(fields.errors)}`);
  return fields.value;
}

export async function startKeyServiceFixture(log: (line: string) => void): Promise<KeyServiceFixture> {
  const dataDir = await makeTempDir("keydesk-bench-");
  let server: ServeProcess | undefined;
  try {
    const started = performance.now();
    const data = openDataDir({ dataDir });
    const seeded = new Map<SeededSize, SeededAccount>();
    let empty: KeyServiceFixture["empty"];
    try {
      const emptyAccount = await addAccount(data.store, { username: "bench-empty", password: PASSWORD });
      empty = {
        username: emptyAccount.username,
        authorization: basic(emptyAccount.username, PASSWORD),
        accountKey: emptyAccount.accountKey,
      };
      for (const size of SEEDED_SIZES) {
        const account = await addAccount(data.store, { username: `bench-${size}`, password: PASSWORD });
        const publicApiKeys: string[] = [];
        const now = Date.now();
        data.db.transaction(() => {
          for (let index = 0; index < size; index++) {
            const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
            data.apiKeys.insert(account.id, account.accountKey, identity, seedFields(index), now + index);
            publicApiKeys.push(identity.publicApiKey);
          }
        })();
        seeded.set(size, {
          username: account.username,
          authorization: basic(account.username, PASSWORD),
          accountKey: account.accountKey,
          size,
          publicApiKeys,
        });
      }
      data.db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      data.close();
    }
    const seedMs = performance.now() - started;
    log(`seeded ${SEEDED_SIZES.join(" + ")} keys in ${(seedMs / 1000).toFixed(1)} s`);

    const cpuProfileDir = process.env.BENCH_CPU_PROF_DIR;
    server = await startServe({
      dataDir,
      env: {
        KEY_SERVICE_LOG_LEVEL: "warn",
        ...(cpuProfileDir && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfileDir}` }),
      },
    });
    log(
      `key-service serve listening on ${server.url}${cpuProfileDir ? ` (CPU profile to ${cpuProfileDir})` : ""}`,
    );
    const running = server;
    return {
      server: running,
      empty,
      seeded,
      seedMs,
      async close() {
        try {
          const exit = await running.stop("SIGTERM");
          if (exit.code !== 0) {
            throw new BenchFailure(
              `key-service serve exited with ${exit.code ?? exit.signal}; stderr:\n${running.stderr()}`,
            );
          }
        } finally {
          await removeDir(dataDir);
        }
      },
    };
  } catch (error) {
    await server?.stop("SIGKILL");
    await removeDir(dataDir);
    throw error;
  }
}
