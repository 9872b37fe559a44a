import type { Store } from "../store/store.ts";
import { PinEvents } from "./pinEvents.ts";
import { PinInbox } from "./pinInbox.ts";
import { relayReplicaPinEvents } from "./replicaPinEvents.ts";
import { TfaApplications } from "./tfaApplications.ts";
import { TfaPins, type TfaPinsOptions } from "./tfaPins.ts";

/** The local 2FA simulator: the provider's 2FA v2 operations plus the PIN inbox they fill. */
export interface TfaSimulator {
  applications: TfaApplications;
  pins: TfaPins;
  inbox: PinInbox;
  events: PinEvents;
}

/** `observers`: what the service's metrics are told of (PINs sent, the status cache's lookups). */
export function createTfaSimulator(
  store: Store,
  now: () => number = Date.now,
  observers: Pick<TfaPinsOptions, "onPinSent" | "statusLookups"> = {},
): TfaSimulator {
  const events = new PinEvents();
  const applications = new TfaApplications(store, now);
  relayReplicaPinEvents(store.changes, store.tfaPins, events);
  return {
    applications,
    pins: new TfaPins(applications, store, events, { now, ...observers }),
    inbox: new PinInbox(store.tfaPins, store.accounts),
    events,
  };
}
