import { activeProfile, type CoreContext } from "./context.ts";
import { CoreFailure } from "./coreFailure.ts";

/**
 * Refuses a call made for a profile that is no longer the active one: its rows, keys and accounts
 * came from another service, where the same key id may name another key (a synced pair keeps the
 * remote's ids). Called before any handler runs, so nothing of the call is done.
 */
export function requireActiveProfile(context: CoreContext, args: unknown): void {
  if (typeof args !== "object" || args === null || !("profile" in args)) return;
  const named = (args as { profile: string }).profile;
  const active = activeProfile(context);
  if (named === active.id) return;
  const shown = context.store.profile(named)?.name;
  throw new CoreFailure(
    "PROFILE_CHANGED",
    `nothing was done: this view showed ${shown ? `the profile “${shown}”` : "a profile since removed"}, ` +
      `and “${active.name}” is the active profile now; look again at its data and try once more`,
  );
}
