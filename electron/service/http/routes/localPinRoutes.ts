import type { FastifyInstance } from "fastify";
import { PIN_STREAM_EVENTS } from "../../../../shared/tfa.ts";
import { ApiError } from "../../errors.ts";
import type { TfaSimulator } from "../../tfa/tfaSimulator.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { type EventStream, openEventStream } from "../eventStream.ts";
import { routePath } from "../methodRoutes.ts";

export const LOCAL_PINS_PATH = "/local/1/pins";
export const LOCAL_PINS_STREAM_PATH = `${LOCAL_PINS_PATH}/stream`;

/**
 * Open streams one account's credentials may hold at once: plenty for the app's windows and a few
 * scripts, while bounding what one set of credentials can make the service hold (each stream may
 * buffer up to MAX_UNSENT_BYTES for a client that does not read, so 8 MiB per account).
 */
export const MAX_STREAMS_PER_ACCOUNT = 32;
/** A stream frees its place only when its client leaves; the heartbeat interval is a fair wait. */
const STREAM_RETRY_AFTER_S = 15;

const tooManyStreams = () =>
  new ApiError(
    "TOO_MANY_REQUESTS",
    `this account already has ${MAX_STREAMS_PER_ACCOUNT} open PIN streams; close one (or reuse it) and try again in ${STREAM_RETRY_AFTER_S} s`,
    undefined,
    { "retry-after": String(STREAM_RETRY_AFTER_S) },
  );

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
  /** Open streams per account id (the credentials' account), for MAX_STREAMS_PER_ACCOUNT. */
  const openPerAccount = new Map<number, number>();
  const release = (accountId: number) => {
    const left = (openPerAccount.get(accountId) ?? 1) - 1;
    if (left > 0) openPerAccount.set(accountId, left);
    else openPerAccount.delete(accountId);
  };
  // Open streams never finish on their own: end them first, or closing the server would wait forever.
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
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
      // Before HEAD too: HEAD answers what GET would.
      const held = openPerAccount.get(caller.id) ?? 0;
      if (held >= MAX_STREAMS_PER_ACCOUNT) throw tooManyStreams();
      if (request.method === "HEAD") {
        return reply.type("text/event-stream; charset=utf-8").header("cache-control", "no-cache").send();
      }
      let unsubscribe = () => {};
      openPerAccount.set(caller.id, held + 1);
      const stream = openEventStream(reply, () => {
        unsubscribe();
        open.delete(stream);
        release(caller.id);
      });
      open.add(stream);
      unsubscribe = events.subscribe(
        inbox.listener(caller, filter, (event) => {
          if (event.type === "captured") stream.send(PIN_STREAM_EVENTS.captured, event.pin);
          else stream.send(PIN_STREAM_EVENTS.state, event.state);
        }),
      );
      // Its sign-in finished while the service was stopping: the preClose hook has ended the
      // streams it saw, and this one would hold the stop open for good.
      if (closing) stream.close();
      return reply;
    },
  });
}
