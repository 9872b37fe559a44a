// Runs in a worker thread of the bench (listThread.ts): full lists back to back, read and counted
// as they stream in, at the lowest CPU priority (Linux's idle class for this thread alone, else
// nice 19), so that while the probe measures the service during lists, the bench's own reading of
// a few hundred MB does not take the cores from the service and the probe. In real use the lists'
// reader is another machine: an admin's desktop or a sync peer. At nice 19 (before 2026-11-26) a
// woken probe or service thread still waited for the reader's time slice, up to a 4 ms tick here.

import http from "node:http";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { idleThisThread, niceThisThread } from "../../electron/service/threadPriority.ts";
import { streamList } from "./streamList.ts";

interface ListLoopInit {
  url: string;
  authorization: string;
  /** Lists are started for at least this long (the last one started is read to its end). */
  forMs: number;
  /** Keys each list must hold. */
  keys: number;
}

const init = workerData as ListLoopInit;
if (!idleThisThread()) niceThisThread(19);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const started = performance.now();
let lists = 0;
try {
  do {
    const list = await streamList(agent, init.url, init.authorization);
    if (list.keys !== init.keys) throw new Error(`a full list held ${list.keys} keys, expected ${init.keys}`);
    lists++;
  } while (performance.now() - started < init.forMs);
  parentPort?.postMessage({ lists });
} catch (error) {
  parentPort?.postMessage({ error: (error as Error).message });
} finally {
  agent.destroy();
}
