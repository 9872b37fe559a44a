import { Counter, Histogram, type Registry } from "prom-client";

/**
 * Counts kept as plain numbers where things happen, handed to prom-client only when Prometheus
 * scrapes. prom-client's own `inc` and `observe` hash their labels on every call, children too:
 * measured here 0.3–0.7 µs per counter increment and 1.2 µs per histogram observation, against
 * about 15 µs of CPU for a whole App-authorized request. Bumping a field costs next to nothing.
 */

/** One series of a counter, counted in place (`cell.count++`). */
export interface CounterCell<L extends string> {
  readonly labels: Readonly<Partial<Record<L, string>>>;
  count: number;
}

export const counterCell = <L extends string>(labels: Partial<Record<L, string>>): CounterCell<L> => ({
  labels,
  count: 0,
});

interface MetricNames<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
}

/** A counter whose series are the cells `cells()` gives at each scrape (every one, zeros included). */
export function talliedCounter<L extends string>(
  registry: Registry,
  names: MetricNames<L>,
  cells: () => Iterable<CounterCell<L>>,
): Counter<L> {
  return new Counter<L>({
    ...names,
    registers: [registry],
    collect() {
      this.reset();
      for (const cell of cells()) this.inc(cell.labels, cell.count);
    },
  });
}

/** One series of a histogram, observed in place with `observeInto`. */
export interface HistogramCell<L extends string> extends CounterCell<L> {
  /** Observations per bucket, not cumulative; the last slot holds those above every bound. */
  readonly buckets: Float64Array;
  sum: number;
}

export const histogramCell = <L extends string>(
  labels: Partial<Record<L, string>>,
  bounds: readonly number[],
): HistogramCell<L> => ({ labels, count: 0, sum: 0, buckets: new Float64Array(bounds.length + 1) });

export function observeInto<L extends string>(
  cell: HistogramCell<L>,
  bounds: readonly number[],
  value: number,
): void {
  let bucket = 0;
  while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
  (cell.buckets[bucket] as number)++;
  cell.sum += value;
  cell.count++;
}

/**
 * A histogram whose series are the cells `cells()` gives at each scrape. prom-client has no way to
 * set a histogram's buckets, so this one answers the registry itself, in the shape prom-client's
 * own histogram answers (`_bucket` per bound and `+Inf`, `_sum`, `_count`).
 */
export class TalliedHistogram<L extends string> extends Histogram<L> {
  readonly #names: MetricNames<L>;
  readonly #bounds: readonly number[];
  readonly #cells: () => Iterable<HistogramCell<L>>;

  constructor(
    registry: Registry,
    names: MetricNames<L>,
    bounds: readonly number[],
    cells: () => Iterable<HistogramCell<L>>,
  ) {
    super({ ...names, buckets: [...bounds], registers: [registry] });
    this.#names = names;
    this.#bounds = bounds;
    this.#cells = cells;
  }

  override async get(): ReturnType<Histogram<L>["get"]> {
    const { name, help } = this.#names;
    const values: { metricName: string; labels: Partial<Record<string, string | number>>; value: number }[] =
      [];
    for (const cell of this.#cells()) {
      let cumulative = 0;
      for (const [at, bound] of this.#bounds.entries()) {
        cumulative += cell.buckets[at] as number;
        values.push({
          metricName: `${name}_bucket`,
          labels: { ...cell.labels, le: bound },
          value: cumulative,
        });
      }
      values.push({
        metricName: `${name}_bucket`,
        labels: { ...cell.labels, le: "+Inf" },
        value: cell.count,
      });
      values.push({ metricName: `${name}_sum`, labels: { ...cell.labels }, value: cell.sum });
      values.push({ metricName: `${name}_count`, labels: { ...cell.labels }, value: cell.count });
    }
    // prom-client types `type` as an enum its own code never uses (it writes the string).
    return { name, help, type: "histogram", aggregator: "sum", values } as unknown as Awaited<
      ReturnType<Histogram<L>["get"]>
    >;
  }

  /** What the registry asks for the text format (prom-client's own answers its observations). */
  getForPromString(): ReturnType<Histogram<L>["get"]> {
    return this.get();
  }
}
