import type { KeyServiceFixture } from "../keyServiceFixture.ts";
import type { Metric } from "./metrics.ts";

/** What every benchmark gets: shared, lazily started fixtures and a progress log. */
export interface BenchContext {
  /** The seeded data directory and its `key-service serve` process, started on first use. */
  keyService(): Promise<KeyServiceFixture>;
  /** Progress lines (stderr, so stdout keeps only the table). */
  log(line: string): void;
}

export interface Benchmark {
  /** Lower-case, unique; `npm run bench -- <name>` runs this one only. */
  name: string;
  description: string;
  /** Measures and returns its metrics; throws (BenchFailure) when the bench itself fails. */
  run(context: BenchContext): Promise<Metric[]>;
}
