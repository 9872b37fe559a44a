// Runs as a child process of the bench (listProcess.ts): full lists back to back, read and counted
// as they stream in, at the lowest CPU priority (Linux's idle class for every thread of this
// process, else nice 19), so that while the probe measures the service during lists, the bench's
// own reading of a few hundred MB does not take the cores from the service and the probe. In real
// use the lists' reader is another machine: an admin's desktop or a sync peer. A process, not a
// thread of the bench: V8's helper threads (the reader's garbage collection) are shared by a
// process's threads and ran at normal priority; the probe's calls then waited for them.

import http from "node:http";
import { performance } from "node:perf_hooks";
import { idleThisProcess } from "../../electron/service/threadPriority.ts";
import { streamList } from "./streamList.ts";

interface ListLoopInit {
  url: string;
  authorization: string;
  /** Lists are started for at least this long (the last one started is read to its end). */
  forMs: number;
  /** Keys each list must hold. */
  keys: number;
}

const init = JSON.parse(process.argv[2] as string) as ListLoopInit;
idleThisProcess();
// Until here the process ran at normal priority (Node's start, this module's imports): the bench
// starts its probe only after this message, so none of that is in the probe's times.
process.send?.({ kind: "ready" });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const started = performance.now();
let lists = 0;
try {
  do {
    const list = await streamList(agent, init.url, init.authorization);
    if (list.keys !== init.keys) throw new Error(`a full list held ${list.keys} keys, expected ${init.keys}`);
    lists++;
  } while (performance.now() - started < init.forMs);
  process.send?.({ kind: "done", lists });
} catch (error) {
  process.send?.({ kind: "error", message: (error as Error).message });
} finally {
  agent.destroy();
}
