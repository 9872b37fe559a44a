// Runs in a worker thread of the bench (listThread.ts): full lists back to back, read and counted
// as they stream in, at the lowest CPU priority (nice 19, this thread alone on Linux), so that
// while the probe measures the service during lists, the bench's own reading of a few hundred MB
// does not take the cores from the service and the probe. In real use the lists' reader is
// another machine: an admin's desktop or a sync peer.

import http from "node:http";
import { setPriority } from "node:os";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
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
try {
  setPriority(19);
} catch {
  // Not allowed here: the lists are read at the bench's priority.
}
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
