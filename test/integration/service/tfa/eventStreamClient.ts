import http from "node:http";

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

export function openEventStream(
  baseUrl: string,
  path: string,
  authorization: string,
): Promise<EventStreamClient> {
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
        let buffer = "";
        let endStream: () => void = () => {};
        const ended = new Promise<void>((resolveEnd) => {
          endStream = resolveEnd;
        });
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let boundary = buffer.indexOf("\n\n");
          while (boundary !== -1) {
            const block = buffer.slice(0, boundary);
            buffer = buffer.slice(boundary + 2);
            let event = "message";
            const data: string[] = [];
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) comments.push(line.slice(1).trim());
              else if (line.startsWith("event:")) event = line.slice(6).trim();
              else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
            }
            if (data.length > 0) events.push({ event, data: data.join("\n") });
            boundary = buffer.indexOf("\n\n");
          }
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

        resolve({
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
        });
      },
    );
    req.on("error", reject);
  });
}
