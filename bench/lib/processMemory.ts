import { readFileSync, writeFileSync } from "node:fs";

/** Memory of another process (Linux only), from /proc/<pid>/status. */

export interface ProcessMemory {
  /** Resident set size now (VmRSS), MB. */
  rssMb: number;
  /** Peak resident set size (VmHWM) since the start or the last resetPeakRss, MB. */
  peakMb: number;
}

function statusField(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  if (!match) throw new Error(`no ${field} in /proc status`);
  return Number(match[1]) / 1024;
}

export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return { rssMb: statusField(status, "VmRSS"), peakMb: statusField(status, "VmHWM") };
}

/**
 * Resets the process's VmHWM to its current RSS (`5` to /proc/<pid>/clear_refs, Linux 4.0+), so a
 * later VmHWM is the peak of what happened in between. False when the kernel refuses.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples VmRSS every `everyMs` until stopped; the highest value seen, MB (a fallback for the
 * peak where VmHWM cannot be reset).
 */
export function sampleRss(pid: number, everyMs = 20): { stop(): number } {
  let highest = processMemory(pid).rssMb;
  const timer = setInterval(() => {
    try {
      highest = Math.max(highest, processMemory(pid).rssMb);
    } catch {
      // the process is gone; the caller notices
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return highest;
    },
  };
}
