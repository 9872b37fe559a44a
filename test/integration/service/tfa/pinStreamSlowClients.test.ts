import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { after, before, test } from "node:test";
import { MAX_STREAMS_PER_ACCOUNT } from "../../../../electron/service/http/routes/localPinRoutes.ts";
import { type Service, startService } from "../serviceFixture.ts";
import { openEventStream } from "./eventStreamClient.ts";
import { tfaCaller } from "./tfaFixture.ts";

/**
 * Clients of the PIN stream that do not read, against a real `serve` process over loopback: the
 * service must neither buffer for them without limit (it disconnects them) nor let one account
 * open streams without limit, while a client that reads still gets every event.
 */

const STREAM = "/local/1/pins/stream";
/** PINs sent while the slow clients sit idle; with 4 KiB texts, ~24 MiB of events per client. */
const PINS = 6000;
/**
 * Unbounded buffering would hold ~700 MB here (31 clients × 24 MiB, less what the kernel holds).
 * What the service's heap keeps of the sending itself is garbage V8 has not given back yet, and
 * it varies with the machine's load, not with the streams: 51 to 190 MB after 2,000 PINs on
 * SQLite in the same CI run, 132 MB after 2,000 and 160 MB after 6,000 on PostgreSQL. So the
 * bound sits well between the two, with enough PINs that the one cannot pass for the other.
 */
const MAX_RSS_GROWTH_MB = 300;

let service: Service;
let auth: string;

before(async () => {
  service = await startService([{ username: "owner", password: "owner-secret-1" }]);
  auth = service.auth("owner");
});
after(async () => {
  await service?.close();
});

/** The serve process's resident memory (MiB), as the kernel counts it. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  assert.ok(kb > 0, "no VmRSS in /proc/<pid>/status");
  return kb / 1024;
}

interface RawSubscriber {
  /** Starts reading again; resolves with everything received once the server ends the stream. */
  drainUntilEnd(timeoutMs: number): Promise<string>;
  /** The status line and headers. */
  head: string;
  close(): void;
}

/** A stream client on a plain socket that stops reading as soon as the stream has opened. */
function idleSubscriber(port: number): Promise<RawSubscriber> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let received = "";
    socket.setEncoding("latin1");
    socket.on("error", () => {});
    socket.once("connect", () =>
      socket.write(`GET ${STREAM} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth}\r\n\r\n`),
    );
    const onData = (chunk: string) => {
      received += chunk;
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd === -1) return;
      const head = received.slice(0, headEnd);
      if (!head.startsWith("HTTP/1.1 200")) {
        socket.destroy();
        reject(new Error(`stream refused: ${received}`));
        return;
      }
      if (!received.includes(": connected")) return;
      socket.off("data", onData);
      socket.pause();
      resolve({
        head,
        close: () => socket.destroy(),
        drainUntilEnd: (timeoutMs) =>
          new Promise((resolveDrain, rejectDrain) => {
            const timer = setTimeout(() => {
              socket.destroy();
              rejectDrain(new Error(`the server did not end an idle client's stream within ${timeoutMs} ms`));
            }, timeoutMs);
            socket.on("data", (more: string) => {
              received += more;
            });
            socket.once("close", () => {
              clearTimeout(timer);
              resolveDrain(received);
            });
            socket.resume();
          }),
      });
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error(`stream closed before it opened: ${received}`)));
  });
}

const count = (text: string, part: string) => text.split(part).length - 1;

test("clients that do not read are disconnected, memory stays bounded, a reader gets every event", async (t) => {
  const owner = tfaCaller(service, auth);
  const { applicationId, messageId } = await owner.setUp(
    { sendPinPerApplicationLimit: "100000/1d", sendPinPerPhoneNumberLimit: "100000/1d" },
    { messageText: `Your code is {{pin}}. ${"x".repeat(4000)}`, pinType: "NUMERIC" },
  );
  const pid = service.serve.child.pid as number;
  const reader = await openEventStream(service.serve.url, STREAM, auth);
  assert.equal(reader.status, 200);
  const idle: RawSubscriber[] = [];
  try {
    for (let i = 0; i < MAX_STREAMS_PER_ACCOUNT - 1; i++) idle.push(await idleSubscriber(service.serve.port));
    const before = await rssMb(pid);

    let next = 0;
    const sender = async () => {
      while (next < PINS) {
        const n = next++;
        await owner.sendSms({ applicationId, messageId, to: `4179${String(n).padStart(7, "0")}` });
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    const grown = (await rssMb(pid)) - before;
    t.diagnostic(`the service's RSS grew by ${grown.toFixed(1)} MB while ${PINS} PINs were sent`);

    await reader.waitForEvent(() => reader.events.filter((e) => e.event === "pin").length >= PINS, 20_000);
    assert.equal(
      reader.events.filter((event) => event.event === "pin").length,
      PINS,
      "the reader missed events",
    );
    assert.ok(
      grown < MAX_RSS_GROWTH_MB,
      `the service grew by ${grown.toFixed(0)} MB for clients that do not read`,
    );

    // Each idle client was let go: reading again, it finds its stream ended, short of the events sent.
    const drained = await Promise.all(idle.map((client) => client.drainUntilEnd(10_000)));
    for (const text of drained)
      assert.ok(count(text, "event: pin\n") < PINS, "an idle client got every event");
  } finally {
    reader.close();
    for (const client of idle) client.close();
  }
});

test(`an account holds at most ${MAX_STREAMS_PER_ACCOUNT} open streams; the next is 429 with Retry-After`, async () => {
  const open: RawSubscriber[] = [];
  try {
    // Streams of the previous test may still be closing on the server's side.
    for (let i = 0; i < MAX_STREAMS_PER_ACCOUNT; i++) {
      open.push(await retry(() => idleSubscriber(service.serve.port)));
    }
    // The stream client (not `call`): were the stream let open, `call` would wait on it forever. Its
    // error answer is checked against /openapi.json, which pins the 429's messageId and Retry-After.
    const refused = await openEventStream(service.serve.url, STREAM, auth);
    refused.close();
    assert.equal(refused.status, 429, "a stream beyond the account's limit was opened");
    assert.match(String(refused.headers["retry-after"]), /^\d+$/);
    // A stream that ends gives its place back.
    open.pop()?.close();
    open.push(await retry(() => idleSubscriber(service.serve.port)));
  } finally {
    for (const client of open) client.close();
  }
});

/** Tries for up to 5 s: a place is freed when the server sees the socket close, a moment later. */
async function retry<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
