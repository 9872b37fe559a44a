import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { PIN_STREAM_EVENTS } from "../../../../shared/tfa.ts";
import { ApiError } from "../../errors.ts";
import { localPinsQuerySchema } from "../../tfa/schemas.ts";
import type { TfaSimulator } from "../../tfa/tfaSimulator.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { type EventStream, openEventStream } from "../eventStream.ts";
import { routePath } from "../methodRoutes.ts";
import { errorResponse } from "../openApiErrors.ts";
import { componentRef, documented, jsonContent } from "../routeSchemas.ts";
import { MAX_UNSENT_BYTES } from "../slowClient.ts";
import { BASIC_CHALLENGE, basicOnly, commonErrors, serviceFailures } from "./commonErrors.ts";
import { capturedPin, capturedPinList, pinState } from "./tfaSchemas.ts";

const LOCAL_PINS_PATH = SERVICE_ROUTES.localPins;
const LOCAL_PINS_STREAM_PATH = SERVICE_ROUTES.localPinsStream;

/**
 * Open streams one account's credentials may hold at once: plenty for the app's windows and a few
 * scripts, while bounding what one set of credentials can make the service hold (each stream may
 * buffer up to MAX_UNSENT_BYTES for a client that does not read, so 8 MiB per account).
 * @internal Exported for tests.
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

const localErrors = {
  400: errorResponse("400", "Invalid query parameters"),
  401: errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
  403: errorResponse("403", "An API key was used; the PIN inbox takes the account's Basic credentials only"),
  429: commonErrors["429"],
  ...serviceFailures,
};
const TAGS = ["PIN inbox"];
/**
 * A stream filters as the list does but is not limited: `limit` is not one of its parameters and
 * is refused like any other unknown one (it was once accepted and ignored).
 */
const streamQuery = localPinsQuerySchema.pick({ to: true, applicationId: true });

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
    get: documented(
      {
        tags: TAGS,
        operationId: "listCapturedPins",
        summary:
          "Every message the 2FA simulator sent, of the caller's account and its sub-accounts, newest first",
        security: basicOnly,
        querystring: localPinsQuerySchema,
        response: {
          200: { description: "The captured messages", content: jsonContent(capturedPinList) },
          ...localErrors,
        },
      },
      {
        before: requireBasic,
        handler: (request, _reply, caller) => inbox.list(caller, inbox.filterOf(request.query)),
      },
    ),
  });

  routePath(app, LOCAL_PINS_STREAM_PATH, {
    get: documented(
      {
        tags: TAGS,
        operationId: "streamCapturedPins",
        summary: `Server-sent events: \`${PIN_STREAM_EVENTS.captured}\` (a CapturedPin) for each message sent, \`${PIN_STREAM_EVENTS.state}\` (pinId, applicationId, to, attemptsRemaining, verified) when a verification changes a PIN; a comment every 15 s. A client that stops reading is disconnected once ${MAX_UNSENT_BYTES / 1024} KiB wait unsent for it (reconnect, and list what was missed); an account holds at most ${MAX_STREAMS_PER_ACCOUNT} open streams`,
        description:
          "Filters by `to` and `applicationId` as the list does. A stream has no end to limit: it takes no `limit`, which is refused (400) like any parameter it does not name.",
        security: basicOnly,
        querystring: streamQuery,
        response: {
          200: {
            description: "An endless event stream",
            content: {
              "text/event-stream": {
                schema: z.string(),
                // OpenAPI 3.1 cannot describe the events of a stream; this names each event's data.
                "x-events": {
                  [PIN_STREAM_EVENTS.captured]: componentRef(capturedPin),
                  [PIN_STREAM_EVENTS.state]: componentRef(pinState),
                },
              },
            },
          },
          ...localErrors,
          429: errorResponse(
            "429",
            `Too many failed sign-in attempts from this address, too many sign-ins being checked at once, or the account already holds ${MAX_STREAMS_PER_ACCOUNT} open streams; see Retry-After`,
          ),
        },
      },
      {
        before: requireBasic,
        handler: async (request, reply, caller) => {
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
      },
    ),
  });
}
