import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Puts the calling thread alone in Linux's SCHED_IDLE class through util-linux's chrt: it then
 * runs only on CPU time nothing else wants, and a thread that wakes takes the core from it at
 * once. A low nice value is not enough: a woken thread then waits for the niced one's time slice
 * (up to a 4 ms tick here). False where that cannot be had (another OS, no chrt, not allowed).
 */
export function idleThisThread(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const thread = readlinkSync("/proc/thread-self").split("/").at(-1) as string;
    execFileSync("chrt", ["--idle", "--pid", "0", thread], { stdio: "ignore", timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

/** Lowers the calling thread's nice value (its own on Linux; elsewhere the whole process's, so left as is). */
export function niceThisThread(value: number): void {
  if (process.platform !== "linux") return;
  try {
    setPriority(value);
  } catch {
    // Not allowed (a sandbox): the thread keeps its priority.
  }
}
