import { execFileSync } from "node:child_process";
import { readlinkSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Puts the calling thread alone in Linux's SCHED_IDLE class through util-linux's chrt: it then
 * runs only on CPU time nothing else wants. A low nice value is not enough: a woken thread then
 * waits for the niced one's time slice (up to a 4 ms tick here). The idle class is not enough
 * either, under EEVDF: see yieldThisThread. False where that cannot be had (another OS, no chrt,
 * not allowed).
 */
export function idleThisThread(): boolean {
  return process.platform === "linux" && chrtIdle("--pid", "0", linuxThreadId());
}

/**
 * Puts every thread of this process in the idle class, V8's and libuv's helper threads too (threads
 * started later inherit it): for a process that works beside the service, such as a backup, which
 * at normal priority took the 2 cores' time from the service's answers (probe p99 3.2-3.6x idle
 * during backups; 1.2-1.8x so). Where chrt is missing or not allowed, or not on Linux, the lowest
 * nice value (19) instead. Says which it got.
 */
export function idleThisProcess(): "idle" | "nice" | "unchanged" {
  if (process.platform === "linux" && chrtIdle("--all-tasks", "--pid", "0", String(process.pid)))
    return "idle";
  try {
    setPriority(19);
    return "nice";
  } catch {
    return "unchanged";
  }
}

/** util-linux's chrt moving a thread (or with --all-tasks a process) to SCHED_IDLE; false where it could not. */
function chrtIdle(...target: string[]): boolean {
  try {
    execFileSync("chrt", ["--idle", ...target], { stdio: "ignore", timeout: 5_000 });
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

/**
 * Lets the calling thread's short sleeps be short: Linux wakes a sleeping thread up to 50 µs late
 * by default (its timer slack), which yieldThisThread would pay on top of its sleep. False where that
 * cannot be set (another OS, not allowed).
 */
export function preciseSleepsThisThread(): boolean {
  if (process.platform !== "linux") return false;
  try {
    writeFileSync(`/proc/${linuxThreadId()}/timerslack_ns`, "1");
    return true;
  } catch {
    return false;
  }
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));
/**
 * How long a yield sleeps. Measured with lists of a million keys: sleeps of 10 µs left the
 * probe's p99 during lists at 2.3–2.5 ms, of 30–50 µs at 1.7–1.9 (idle: 1.1–1.3).
 */
const YIELD_SLEEP_MS = 0.05;

/**
 * Gives the core up for a moment, so that a thread waiting for it runs now. Being in the idle
 * class is not enough under Linux's EEVDF scheduler: a thread woken onto a core that an idle-class
 * thread is running can wait for the next scheduler tick (up to 4 ms at 250 Hz; traced here: the
 * service's thread waited 2–5 ms behind a list worker for about one request in a hundred). A
 * thread that sleeps leaves the core at once. Costs ~75 µs when nothing waits (with
 * preciseSleepsThisThread; ~140 µs without).
 */
export function yieldThisThread(): void {
  Atomics.wait(pauseCell, 0, 0, YIELD_SLEEP_MS);
}

/** The calling thread's id in Linux (/proc/thread-self names it). */
function linuxThreadId(): string {
  return readlinkSync("/proc/thread-self").split("/").at(-1) as string;
}
