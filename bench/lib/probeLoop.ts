// Runs in a worker thread of the bench (probeThread.ts): sequential GETs, `gapMs` apart, each
// timed from sending to the last byte, in an event loop of its own, so that what the bench's
// main thread does meanwhile (reading a list of a million keys) is not in the times.

import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

interface ProbeLoopInit {
  url: string;
  authorization: string;
  gapMs: number;
  /** Stops after this many calls; otherwise on a "stop" message. */
  calls?: number;
}

const init = workerData as ProbeLoopInit;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopping = false;
parentPort?.on("message", (message) => {
  if (message === "stop") stopping = true;
});

function call(): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(init.url, { agent, headers: { authorization: init.authorization } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          ms: performance.now() - started,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

/**
 * Untimed calls first: the thread's first calls open its connection and compile its code, which
 * is the bench's cold start, not the service's latency.
 */
const WARM_UP_CALLS = 20;

const times: number[] = [];
try {
  for (let warm = 0; warm < WARM_UP_CALLS && !stopping; warm++) {
    const answer = await call();
    if (answer.status !== 200) throw new Error(`the probe answered ${answer.status}: ${answer.body}`);
  }
  while (!stopping && (init.calls === undefined || times.length < init.calls)) {
    const answer = await call();
    if (answer.status !== 200) throw new Error(`the probe answered ${answer.status}: ${answer.body}`);
    times.push(answer.ms);
    await new Promise((resolve) => setTimeout(resolve, init.gapMs));
  }
  parentPort?.postMessage({ times });
} catch (error) {
  parentPort?.postMessage({ error: (error as Error).message });
} finally {
  agent.destroy();
  // The stop listener must not keep this thread alive once its times are sent.
  parentPort?.removeAllListeners("message");
}
