import { join } from "node:path";
import { appAuthorization } from "./appAuthorization.bench.ts";
import { backupBenchmark } from "./backup.bench.ts";
import { keyServiceBenchmarks } from "./keyService.bench.ts";
import { type KeyServiceFixture, startKeyServiceFixture } from "./keyServiceFixture.ts";
import type { BenchContext, Benchmark } from "./lib/benchmark.ts";
import { formatTable, type Metric, writeResults } from "./lib/metrics.ts";
import { pinStatusBenchmark } from "./pinStatus.bench.ts";
import { postgresBenchmark } from "./postgres.bench.ts";
import { scaleBenchmark } from "./scale.bench.ts";
import { syncBenchmark } from "./sync.bench.ts";
import { uiBenchmark } from "./ui.bench.ts";

/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name> [<name>...]` runs some.
 * Prints a table on stdout and writes bench/results/key-service.json. Exits non-zero only
 * when the bench itself fails (server error, non-2xx answer), never for a missed target.
 */

/** Every benchmark, in run order. New benchmarks are added here. */
export const benchmarks: readonly Benchmark[] = [
  ...keyServiceBenchmarks,
  appAuthorization,
  uiBenchmark,
  syncBenchmark,
  scaleBenchmark,
  backupBenchmark,
  postgresBenchmark,
  pinStatusBenchmark,
];

const RESULTS_FILE = join(import.meta.dirname, "results", "key-service.json");

function selectBenchmarks(names: string[]): Benchmark[] {
  const known = benchmarks.map((b) => `  ${b.name.padEnd(10)} ${b.description}`).join("\n");
  if (names.includes("--help") || names.includes("-h")) {
    process.stdout.write(`usage: npm run bench [-- <name>...]\nbenchmarks:\n${known}\n`);
    process.exit(0);
  }
  if (names.length === 0) return [...benchmarks];
  const unknown = names.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown benchmark ${unknown.join(", ")}; choose from:\n${known}\n`);
    process.exit(2);
  }
  return benchmarks.filter((benchmark) => names.includes(benchmark.name));
}

async function main(): Promise<void> {
  const selected = selectBenchmarks(process.argv.slice(2));
  const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
  let fixture: Promise<KeyServiceFixture> | undefined;
  const context: BenchContext = {
    keyService: () => {
      fixture ??= startKeyServiceFixture(log);
      return fixture;
    },
    log,
  };
  const closeFixtures = async () => {
    if (fixture) await (await fixture).close();
  };
  const interrupt = () => {
    log("interrupted; stopping the server");
    closeFixtures().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  const started = Date.now();
  const metrics: Metric[] = [];
  try {
    for (const benchmark of selected) {
      log(`${benchmark.name}: ${benchmark.description}`);
      metrics.push(...(await benchmark.run(context)));
    }
  } finally {
    await closeFixtures();
  }

  process.stdout.write(`\n${formatTable(metrics)}\n\n`);
  await writeResults(
    RESULTS_FILE,
    metrics,
    benchmarks.map((benchmark) => benchmark.name),
  );
  const missed = metrics.filter((m) => m.pass === false);
  process.stdout.write(
    `results written to ${RESULTS_FILE} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
  );
  if (missed.length > 0) {
    const list = missed.map(
      (m) => `  ${m.benchmark}.${m.name} = ${m.value} ${m.unit} (target ${m.target} ${m.unit})`,
    );
    process.stdout.write(`\n!!! MISSED ${missed.length} target(s):\n${list.join("\n")}\n`);
  } else {
    process.stdout.write("all targets met\n");
  }
}

main().catch((error: Error) => {
  process.stderr.write(`\nbench FAILED: ${error.message}\n`);
  process.exitCode = 1;
});
