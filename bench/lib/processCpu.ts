import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** CPU time of other processes (Linux only), from /proc/<pid>/stat. */

const CLOCK_TICKS_PER_SECOND =
  Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** The fields after the command's closing parenthesis (the command may hold spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** CPU seconds a process (all its threads) has used so far: utime + stime. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU seconds a process and all its children have used so far: its own utime + stime, those of
 * its living children, and cutime + cstime (the children it already reaped). For PostgreSQL's
 * postmaster that is every backend, including connections that ended in between.
 */
export function treeCpuSeconds(pid: number): number {
  const own = statFields(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fields: string[];
    try {
      fields = statFields(Number(entry));
    } catch {
      continue; // ended while we looked
    }
    // fields[1] is the parent pid (the 4th field of stat).
    if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / CLOCK_TICKS_PER_SECOND;
}
