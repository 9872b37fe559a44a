import type { FastifyInstance } from "fastify";
import { PIN_STREAM_EVENTS } from "../../../../shared/tfa.ts";
import type { TfaSimulator } from "../../tfa/tfaSimulator.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { type EventStream, openEventStream } from "../eventStream.ts";
import { routePath } from "../methodRoutes.ts";

export const LOCAL_PINS_PATH = "/local/1/pins";
export const LOCAL_PINS_STREAM_PATH = `${LOCAL_PINS_PATH}/stream`;

/**
 * The PIN inbox, a catcher for one-time PINs: the messages the 2FA simulator "sent", for the
 * account's own Basic credentials (its own and its sub-accounts' messages), as a list and as a
 * live stream of server-sent events.
 */
export function registerLocalPinRoutes(
  app: FastifyInstance,
  tfa: TfaSimulator,
  requireBasic: BasicGuard,
): void {
  const { inbox, events } = tfa;
  const open = new Set<EventStream>();
  // Open streams never finish on their own: end them first, or closing the server would wait forever.
  app.addHook("preClose", (done) => {
    for (const stream of [...open]) stream.close();
    done();
  });

  routePath(app, LOCAL_PINS_PATH, {
    get: async (request) => {
      const caller = await requireBasic(request);
      return inbox.list(caller, inbox.filterOf(request.query));
    },
  });

  routePath(app, LOCAL_PINS_STREAM_PATH, {
    get: async (request, reply) => {
      const caller = await requireBasic(request);
      const filter = inbox.filterOf(request.query);
      if (request.method === "HEAD") {
        return reply.type("text/event-stream; charset=utf-8").header("cache-control", "no-cache").send();
      }
      const matches = inbox.matcher(caller, filter);
      let unsubscribe = () => {};
      const stream = openEventStream(reply, () => {
        unsubscribe();
        open.delete(stream);
      });
      open.add(stream);
      unsubscribe = events.subscribe((event) => {
        if (!matches(event)) return;
        if (event.type === "captured") stream.send(PIN_STREAM_EVENTS.captured, event.pin);
        else stream.send(PIN_STREAM_EVENTS.state, event.state);
      });
      return reply;
    },
  });
}
