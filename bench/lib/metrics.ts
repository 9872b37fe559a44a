import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { availableParallelism, cpus } from "node:os";
import { dirname } from "node:path";

/** One measured number, with the target it is judged against (if any). */
export interface Metric {
  /** The benchmark that measured it (the name `npm run bench -- <name>` takes). */
  benchmark: string;
  name: string;
  value: number;
  unit: string;
  /** e.g. ">= 2000" or "< 250"; null for numbers reported without a target. */
  target: string | null;
  /** null when there is no target. */
  pass: boolean | null;
}

export type Target = { atLeast: number } | { below: number } | { equals: number };

/** A metric judged against its target. Values are rounded to keep the results file diff-friendly. */
export function metric(
  benchmark: string,
  name: string,
  value: number,
  unit: string,
  target?: Target,
): Metric {
  const base = { benchmark, name, value: roundForReport(value), unit };
  if (!target) return { ...base, target: null, pass: null };
  if ("atLeast" in target) return { ...base, target: `>= ${target.atLeast}`, pass: value >= target.atLeast };
  if ("below" in target) return { ...base, target: `< ${target.below}`, pass: value < target.below };
  return { ...base, target: `= ${target.equals}`, pass: value === target.equals };
}

function roundForReport(value: number): number {
  if (Number.isInteger(value)) return value;
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 2 : 3;
  return Number(value.toFixed(digits));
}

/** The stdout table: metric, value, target, pass/fail. */
export function formatTable(metrics: readonly Metric[]): string {
  const rows = metrics.map((m) => [
    `${m.benchmark}.${m.name}`,
    `${m.value} ${m.unit}`,
    m.target === null ? "-" : `${m.target} ${m.unit}`,
    m.pass === null ? "" : m.pass ? "pass" : "MISSED",
  ]);
  const header = ["metric", "value", "target", "result"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 1 ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number),
      )
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

export interface ResultsFile {
  date: string;
  node: string;
  cpu: string;
  cores: number;
  metrics: Metric[];
}

/**
 * Writes the results file. Metrics of benchmarks that did not run this time are kept from the
 * previous file, so `npm run bench -- <name>` updates only its own entries.
 */
export async function writeResults(
  file: string,
  metrics: readonly Metric[],
  benchmarkOrder: readonly string[],
): Promise<ResultsFile> {
  const ran = new Set(metrics.map((m) => m.benchmark));
  const previous = await readPrevious(file);
  const merged = [
    ...previous.filter((m) => !ran.has(m.benchmark) && benchmarkOrder.includes(m.benchmark)),
    ...metrics,
  ];
  merged.sort((a, b) => benchmarkOrder.indexOf(a.benchmark) - benchmarkOrder.indexOf(b.benchmark));
  const results: ResultsFile = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: availableParallelism(),
    metrics: merged,
  };
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  await writeFile(temporary, formatResults(results));
  await rename(temporary, file);
  return results;
}

/** Pretty JSON with one metric per line: small, and a rerun changes only the lines that moved. */
function formatResults(results: ResultsFile): string {
  const { metrics, ...header } = results;
  const head = JSON.stringify(header, null, 2).replace(/\n}$/, "");
  const lines = metrics.map((m) => `    ${JSON.stringify(m)}`).join(",\n");
  return `${head},\n  "metrics": [\n${lines}\n  ]\n}\n`;
}

async function readPrevious(file: string): Promise<Metric[]> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<ResultsFile>;
    return Array.isArray(parsed.metrics) ? parsed.metrics : [];
  } catch {
    return [];
  }
}
