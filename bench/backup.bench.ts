import { statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { addAccount } from "../electron/service/accountAdmin.ts";
import { openDataDir } from "../electron/service/dataDir.ts";
import { basic, makeTempDir, removeDir, runCli, startServe } from "../test/harness/keyServiceProcess.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { type Metric, metric, type Target } from "./lib/metrics.ts";
import { startProbe } from "./lib/probe.ts";
import { median, percentile } from "./lib/stats.ts";
import { BenchFailure } from "./lib/timedHttp.ts";
import { insertKeys, probeSetUp } from "./scale.bench.ts";

/**
 * `key-service backup` of 100k keys while `serve` answers App-authorized calls: how long the backup
 * and the restore take, and the probe's p99 during the backup against its p99 idle (issue 17).
 */

const KEYS = 100_000;
const PASSWORD = "backup bench password";
const PASSPHRASE = "backup bench passphrase";
const PROBE_GAP_MS = 2;
/** Backups measured, each with the probe running and then as many probe calls alone. */
const BACKUP_ROUNDS = 5;
/** Pause after a backup: the service's collector and the disk settle before the idle calls. */
const SETTLE_MS = 500;

export const backupBenchmark: Benchmark = {
  name: "backup",
  description: "backup and restore of 100k keys; App-authorized p99 during a backup vs idle",
  async run({ log }) {
    const dir = await makeTempDir("keydesk-bench-backup-");
    try {
      const dataDir = join(dir, "data");
      const data = openDataDir({ dataDir });
      try {
        const account = await addAccount(data.store, { username: "owner", password: PASSWORD });
        insertKeys(data, account, KEYS, log);
        data.db.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        data.close();
      }
      log(`backup: seeded ${KEYS} keys`);
      const server = await startServe({ dataDir });
      try {
        const probe = await probeSetUp(server, basic("owner", PASSWORD));
        const target = {
          url: `${server.url}${probe.path}`,
          authorization: probe.appAuthorization,
          gapMs: PROBE_GAP_MS,
        };
        await startProbe({ ...target, calls: 200 }).done; // warm-up
        // Backups back to back with the probe running, each followed by as many calls with
        // nothing else running: the p99 of one backup's ~250 calls was its 3rd slowest call,
        // which moved 1.7x between runs.
        const file = join(dir, "keydesk.backup");
        const backupTimes: number[] = [];
        const during: number[] = [];
        const idle: number[] = [];
        for (let round = 0; round < BACKUP_ROUNDS; round++) {
          const busy = startProbe(target);
          await busy.ready;
          const backupStarted = performance.now();
          const backup = await runCli(["backup", "--data-dir", dataDir, "--out", file], {
            KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
          });
          backupTimes.push(performance.now() - backupStarted);
          const calls = await busy.stop();
          if (backup.code !== 0) throw new BenchFailure(`backup failed: ${backup.stderr}`);
          during.push(...calls);
          await sleep(SETTLE_MS);
          idle.push(...(await startProbe({ ...target, calls: calls.length }).done));
        }
        const backupMs = median(backupTimes);
        const restoreStarted = performance.now();
        const restore = await runCli(["restore", "--in", file, "--data-dir", join(dir, "restored")], {
          KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
        });
        const restoreMs = performance.now() - restoreStarted;
        if (restore.code !== 0) throw new BenchFailure(`restore failed: ${restore.stderr}`);
        const idleP99 = percentile(idle, 99);
        const duringP99 = percentile(during, 99);
        log(
          `backup: ${(backupMs / 1000).toFixed(1)} s, restore ${(restoreMs / 1000).toFixed(1)} s; probe p99 ` +
            `${idleP99.toFixed(2)} ms idle, ${duringP99.toFixed(2)} ms during the backup (${during.length} calls)`,
        );
        const m = (name: string, value: number, unit: string, target?: Target) =>
          metric("backup", `100k.${name}`, value, unit, target);
        return [
          m("backupTime", backupMs, "ms"),
          m("backupTime.max", Math.max(...backupTimes), "ms"),
          m("restoreTime", restoreMs, "ms"),
          m("fileSize", statSync(file).size / 1e6, "MB"),
          m("probe.idleP99", idleP99, "ms"),
          m("probe.backupP99", duringP99, "ms"),
          m("probe.ratio", duringP99 / idleP99, "x", { below: 2 }),
          m("probe.backupCalls", during.length, "calls"),
        ] satisfies Metric[];
      } finally {
        await server.stop();
      }
    } finally {
      await removeDir(dir);
    }
  },
};
