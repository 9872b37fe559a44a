import { readdirSync, readFileSync } from "node:fs";

/** Linux's scheduling policies as /proc shows them. */
export const SCHED_NORMAL = 0;
export const SCHED_IDLE = 5;

/** The threads of this process and the scheduling policy of each (Linux's /proc). */
export function threadPolicies(): { id: string; policy: number }[] {
  return readdirSync("/proc/self/task").map((id) => {
    const stat = readFileSync(`/proc/self/task/${id}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: count the fields after it.
    return { id, policy: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]) };
  });
}

/** This module's path, for a child process's script to import it. */
export const THREAD_POLICIES_MODULE = new URL(import.meta.url).pathname;
