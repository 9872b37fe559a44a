// Runs as a child process of the bench (probe.ts): sequential GETs, `gapMs` apart, each timed
// from sending to the last byte, in a process of its own, so that what the bench does meanwhile
// (its garbage collection among others) is not in the times.

import http from "node:http";

interface ProbeLoopInit {
  url: string;
  authorization: string;
  gapMs: number;
  /** Stops after this many calls; otherwise on a "stop" message. */
  calls?: number;
}

const init = JSON.parse(process.argv[2] as string) as ProbeLoopInit;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopping = false;
process.on("message", (message) => {
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
 * Untimed calls first: the process's first calls open its connection and compile its code, which
 * is the bench's cold start, not the service's latency.
 */
const WARM_UP_CALLS = 200;

const times: number[] = [];
try {
  for (let warm = 0; warm < WARM_UP_CALLS && !stopping; warm++) {
    const answer = await call();
    if (answer.status !== 200) throw new Error(`the probe answered ${answer.status}: ${answer.body}`);
  }
  // The calls from here on are timed.
  process.send?.({ kind: "ready" });
  while (!stopping && (init.calls === undefined || times.length < init.calls)) {
    const answer = await call();
    if (answer.status !== 200) throw new Error(`the probe answered ${answer.status}: ${answer.body}`);
    times.push(answer.ms);
    await new Promise((resolve) => setTimeout(resolve, init.gapMs));
  }
  process.send?.({ kind: "done", times });
} catch (error) {
  process.send?.({ kind: "error", message: (error as Error).message });
} finally {
  agent.destroy();
  // The stop listener must not keep this process alive once its times are sent.
  process.removeAllListeners("message");
}
