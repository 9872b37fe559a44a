import http from "node:http";
import { createParser } from "eventsource-parser";
import { checkerFor } from "../../../harness/serviceContract.ts";

/** A minimal server-sent events client for the tests: parses events and comments as they arrive. */

export interface StreamEvent {
  event: string;
  data: string;
}

export interface EventStreamClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: StreamEvent[];
  comments: string[];
  /** Resolves with the first event (already received or to come) that matches, or rejects after timeoutMs. */
  waitForEvent(match: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  waitForComment(match: (comment: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/**
 * Opens the stream. From a key service whose answers the harness checks (serviceContract.ts), the
 * answer must conform to its /openapi.json: a 200 by its status and headers, every event a test
 * waits for by the schema the document names for that event, and an error answer (read whole
 * before this resolves: it ends) by its body too.
 */
export async function openEventStream(
  baseUrl: string,
  path: string,
  authorization: string,
): Promise<EventStreamClient> {
  const checker = checkerFor(baseUrl);
  const { client, body } = await openRawEventStream(baseUrl, path, authorization);
  if (!checker) return client;
  const conformance = await checker;
  const exchange = { method: "GET", path, status: client.status, headers: client.headers };
  if (client.status !== 200) {
    await client.ended;
    conformance.assertConforms({ ...exchange, text: body() });
    return client;
  }
  try {
    conformance.assertConforms({ ...exchange, text: "" });
  } catch (error) {
    client.close();
    throw error;
  }
  return {
    ...client,
    async waitForEvent(match, timeoutMs) {
      const event = await client.waitForEvent(match, timeoutMs);
      conformance.assertEvent(path, event.event, event.data);
      return event;
    },
  };
}

function openRawEventStream(
  baseUrl: string,
  path: string,
  authorization: string,
): Promise<{ client: EventStreamClient; body: () => string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path,
        headers: { authorization, accept: "text/event-stream" },
        agent: false,
      },
      (res) => {
        const events: StreamEvent[] = [];
        const comments: string[] = [];
        const waiters = new Set<() => void>();
        let received = "";
        let endStream: () => void = () => {};
        const ended = new Promise<void>((resolveEnd) => {
          endStream = resolveEnd;
        });
        // A parser of the standard's own (not the service's code): what the stream says, read as a
        // browser's EventSource would.
        const parser = createParser({
          onEvent: (message) => events.push({ event: message.event ?? "message", data: message.data }),
          onComment: (comment) => comments.push(comment.trim()),
        });
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          received += chunk;
          parser.feed(chunk);
          for (const wake of [...waiters]) wake();
        });
        res.on("end", () => endStream());
        res.on("close", () => endStream());
        res.on("error", () => endStream());

        function waitFor<T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
          return new Promise((resolveWait, rejectWait) => {
            const check = () => {
              const found = find();
              if (found === undefined) return;
              clearTimeout(timer);
              waiters.delete(check);
              resolveWait(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rejectWait(new Error(`no ${what} within ${timeoutMs} ms; events: ${JSON.stringify(events)}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        }

        const client: EventStreamClient = {
          status: res.statusCode as number,
          headers: res.headers,
          events,
          comments,
          ended,
          waitForEvent: (match, timeoutMs = 5000) =>
            waitFor(() => events.find(match), "matching event", timeoutMs),
          waitForComment: (match, timeoutMs = 5000) =>
            waitFor(() => comments.find(match), "matching comment", timeoutMs),
          close: () => {
            req.destroy();
            res.destroy();
          },
        };
        resolve({ client, body: () => received });
      },
    );
    req.on("error", reject);
  });
}
