import type { DataDir } from "../dataDir.ts";
import { TfaPinStore } from "../store/tfaPinStore.ts";
import { TfaStore } from "../store/tfaStore.ts";
import { PinEvents } from "./pinEvents.ts";
import { PinInbox } from "./pinInbox.ts";
import { TfaApplications } from "./tfaApplications.ts";
import { TfaPins } from "./tfaPins.ts";
import { VerifyRateLimiter } from "./verifyRateLimiter.ts";

/** The local 2FA simulator: the provider's 2FA v2 operations plus the PIN inbox they fill. */
export interface TfaSimulator {
  applications: TfaApplications;
  pins: TfaPins;
  inbox: PinInbox;
  events: PinEvents;
}

export function createTfaSimulator(data: DataDir, now: () => number = Date.now): TfaSimulator {
  const pinStore = new TfaPinStore(data.db, data.box, data.externalChanges);
  const events = new PinEvents();
  const applications = new TfaApplications(new TfaStore(data.db), data.writes, now);
  return {
    applications,
    pins: new TfaPins(applications, pinStore, events, new VerifyRateLimiter(), data.writes, { now }),
    inbox: new PinInbox(pinStore, data.accounts),
    events,
  };
}
