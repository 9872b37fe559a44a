import { once } from "node:events";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { KeyListRequest, KeyService } from "../../keyService.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/** Sends a full key list (GET …/api-keys without limit or cursor) as it is read. */
export type KeyListSender = (
  request: FastifyRequest,
  reply: FastifyReply,
  list: KeyListRequest,
) => Promise<FastifyReply>;

/**
 * The full key list answered as the service reads it: whole with a Content-Length when it is short,
 * streamed step by step otherwise. Lists still streaming when the service stops are ended there
 * (the client sees the answer cut short), so that a slow reader cannot hold the stop.
 */
export function keyListSender(
  app: FastifyInstance,
  keys: Pick<KeyService, "listText" | "recyclePiece">,
): KeyListSender {
  const streaming = new Set<() => void>();
  let stopping = false;
  app.addHook("preClose", (done) => {
    stopping = true;
    for (const end of streaming) end();
    done();
  });

  return async (request, reply, list) => {
    const controller = new AbortController();
    // Aborting stops the scan at its next step; a reader that stopped reading never asks for
    // that step, so the answer's socket is closed too.
    const end = () => {
      controller.abort();
      reply.raw.destroy();
    };
    streaming.add(end);
    reply.raw.once("close", () => {
      controller.abort();
      streaming.delete(end);
    });
    const text = keys.listText(list, controller.signal);
    // A list that is whole after its first steps goes out with a Content-Length (simple clients,
    // HTTP/1.0); a longer one streams, step by step.
    const first: (string | Uint8Array)[] = [];
    let whole = false;
    for (let next = await text.next(); ; next = await text.next()) {
      if (next.done) {
        whole = true;
        break;
      }
      first.push(next.value);
      if (first.length > 3) break;
    }
    // Written here rather than piped or sent as one buffer: a piece known to be written lends its
    // memory to a later one, so lists leave nothing behind for the collector (a copy of every
    // short list made the service's thread stop for a full collection every few dozen lists).
    // Fastify's onSend hooks do not run for it, so what they would add is added here.
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      "content-type": JSON_TYPE,
      ...(whole && {
        "content-length": String(first.reduce((sum, part) => sum + byteLength(part), 0)),
      }),
      ...(stopping && { connection: "close" }),
    });
    const send = (part: string | Uint8Array) =>
      response.write(part, (error) => {
        if (!error && typeof part !== "string") keys.recyclePiece(part);
      });
    try {
      if (whole) {
        // In one write to the socket, as a body sent whole would be.
        response.cork();
        for (const part of first) send(part);
        response.uncork();
        response.end();
        return reply;
      }
      if (stopping) end();
      for await (const part of prefixed(first, text)) {
        if (!send(part)) await once(response, "drain", { signal: controller.signal });
      }
      response.end();
    } catch (error) {
      // The client went away, the service is stopping, or the list failed: the answer is cut
      // short (its status was sent with the first piece), and only a failure is worth a line.
      if (!controller.signal.aborted)
        request.log.error({ err: error }, "the key list failed while streaming");
      response.destroy();
    } finally {
      streaming.delete(end);
    }
    return reply;
  };
}

const byteLength = (part: string | Uint8Array) =>
  typeof part === "string" ? Buffer.byteLength(part) : part.byteLength;

async function* prefixed<T>(first: T[], rest: AsyncGenerator<T>): AsyncGenerator<T> {
  yield* first;
  yield* rest;
}
