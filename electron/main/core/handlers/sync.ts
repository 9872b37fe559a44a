import { linkUses, sameBaseUrl } from "../../../../shared/syncLinks.ts";
import { SyncClient } from "../../../client/syncClient.ts";
import { vaultAccounts } from "../../../vault/credentialVault.ts";
import { type CoreContext, clientOf, type HandlerTable, profileOrFail } from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";
import { LOCAL_PROFILE_ID, type StoredProfile } from "../profileStore.ts";

/**
 * Sync with remote instances, through the embedded service's sync routes (shared/sync.ts): the
 * engine runs inside the embedded service, links and their sealed credentials live in its
 * database, and the desktop calls it with the Local profile's credentials whichever profile is
 * active. A link is made from a remote profile: its password goes from the OS keychain to the
 * embedded service without passing through the renderer.
 *
 * Live state ("sync-changed" events): main sends the links after every sync call that changes
 * something, and every second while a run it started is under way (progress). Runs the engine
 * starts on its own (interval, reconnect) are seen by the Sync view's own polling of
 * sync.links.list, so nothing polls in main while nobody asked for a run.
 */

type SyncMethods =
  | "sync.links.list"
  | "sync.links.create"
  | "sync.links.update"
  | "sync.links.remove"
  | "sync.run"
  | "sync.keys"
  | "sync.resolve"
  | "sync.outbox"
  | "sync.outbox.discard"
  | "sync.outbox.retry"
  | "sync.localOnly"
  | "sync.localOnly.push"
  | "sync.localAccounts"
  | "sync.remoteAccounts";

/** How often main sends the links while a run it started is under way. */
const RUN_PROGRESS_INTERVAL_MS = 1_000;

async function localClient(context: CoreContext) {
  return clientOf(context, profileOrFail(context, LOCAL_PROFILE_ID));
}

async function localSync(context: CoreContext): Promise<SyncClient> {
  return new SyncClient(await localClient(context));
}

function remoteProfileOrFail(context: CoreContext, id: string): StoredProfile {
  const profile = profileOrFail(context, id);
  if (profile.kind !== "remote") {
    const text = "a link joins the Local service to a remote profile; choose a remote profile";
    throw new CoreFailure("INVALID_ARGUMENT", text, { profileId: [text] });
  }
  return profile;
}

async function passwordOf(context: CoreContext, profile: StoredProfile): Promise<string> {
  const password = await context.vault.get(vaultAccounts.profilePassword(profile.id));
  if (password === null) {
    throw new CoreFailure(
      context.vault.kind === "session-only" ? "NO_KEYCHAIN" : "UNAUTHORIZED",
      `the password of the profile "${profile.name}" is not stored; edit the profile and enter it again`,
    );
  }
  return password;
}

/** Sends the embedded service's links to the renderer; a failure only means no event this time. */
async function emitLinks(context: CoreContext): Promise<void> {
  try {
    const links = await (await localSync(context)).links();
    context.emit({ type: "sync-changed", links });
  } catch {
    // The next call or the view's own refresh shows the state.
  }
}

/** Runs started through the bridge, per core: while any is under way, the links go out every second. */
const runsUnderWay = new WeakMap<CoreContext, { runs: number; ticking: boolean }>();

function watchRun(context: CoreContext): () => void {
  let watch = runsUnderWay.get(context);
  if (!watch) {
    watch = { runs: 0, ticking: false };
    runsUnderWay.set(context, watch);
  }
  const state = watch;
  state.runs += 1;
  const tick = () => {
    const timer = setTimeout(async () => {
      context.timers.delete(timer);
      if (state.runs > 0) await emitLinks(context);
      if (state.runs > 0) tick();
      else state.ticking = false;
    }, RUN_PROGRESS_INTERVAL_MS);
    timer.unref();
    context.timers.add(timer);
  };
  if (!state.ticking) {
    state.ticking = true;
    tick();
  }
  return () => {
    state.runs -= 1;
  };
}

/** Calls `change`, then tells the renderer about the links (after success and failure alike). */
async function changing<T>(context: CoreContext, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } finally {
    await emitLinks(context);
  }
}

/**
 * After a remote profile was edited: gives the links that use it (same base URL and username
 * before the edit) its new address and credentials, which resumes a link paused by a 401. Never
 * fails the edit: a link that cannot be updated keeps its state, and says so in the Sync view.
 */
export async function updateLinkCredentials(
  context: CoreContext,
  before: StoredProfile,
  after: StoredProfile,
  newPassword: string | undefined,
): Promise<void> {
  if (before.kind !== "remote") return;
  const moved = !sameBaseUrl(before.baseUrl, after.baseUrl);
  if (newPassword === undefined && before.username === after.username && !moved) return;
  try {
    const sync = await localSync(context);
    const links = (await sync.links()).filter((link) => linkUses(link, before));
    if (links.length === 0) return;
    const password = newPassword ?? (await passwordOf(context, after));
    for (const link of links) {
      try {
        await sync.updateLink(link.id, {
          remote: { ...(moved && { baseUrl: after.baseUrl }), username: after.username, password },
        });
      } catch (error) {
        console.warn(
          `keydesk: the sync link ${link.id} did not take the new credentials of "${after.name}": ${(error as Error).message}`,
        );
      }
    }
    await emitLinks(context);
  } catch (error) {
    console.warn(`keydesk: the sync links could not be updated: ${(error as Error).message}`);
  }
}

export const syncHandlers: HandlerTable<SyncMethods> = {
  "sync.links.list": async (_args, context) => (await localSync(context)).links(),

  "sync.links.create": async (
    { localAccountKey, profileId, remoteAccountKey, intervalSeconds, check },
    context,
  ) => {
    const profile = remoteProfileOrFail(context, profileId);
    const password = await passwordOf(context, profile);
    const sync = await localSync(context);
    return changing(context, () =>
      sync.createLink({
        accountKey: localAccountKey,
        remote: {
          baseUrl: profile.baseUrl,
          username: profile.username,
          password,
          accountKey: remoteAccountKey,
        },
        ...(intervalSeconds !== undefined && { intervalSeconds }),
        ...(check !== undefined && { check }),
      }),
    );
  },

  "sync.links.update": async ({ id, intervalSeconds, paused }, context) => {
    const sync = await localSync(context);
    return changing(context, () =>
      sync.updateLink(id, {
        ...(intervalSeconds !== undefined && { intervalSeconds }),
        ...(paused !== undefined && { paused }),
      }),
    );
  },

  "sync.links.remove": async ({ id }, context) => {
    const sync = await localSync(context);
    await changing(context, () => sync.removeLink(id));
    return null;
  },

  "sync.run": async ({ id }, context) => {
    const sync = await localSync(context);
    const stopWatching = watchRun(context);
    try {
      return await changing(context, () => sync.run(id));
    } finally {
      stopWatching();
    }
  },

  "sync.keys": async ({ id }, context) => (await localSync(context)).keys(id),

  "sync.resolve": async ({ id, key, field, take }, context) => {
    const sync = await localSync(context);
    return changing(context, () => sync.resolve(id, key, { field, take }));
  },

  "sync.outbox": async ({ id }, context) => (await localSync(context)).outbox(id),

  "sync.outbox.discard": async ({ id, entryId }, context) => {
    const sync = await localSync(context);
    await changing(context, () => sync.discardEntry(id, entryId));
    return null;
  },

  "sync.outbox.retry": async ({ id, entryId }, context) => {
    const sync = await localSync(context);
    return changing(context, () => sync.retryEntry(id, entryId));
  },

  "sync.localOnly": async ({ id, limit, cursor }, context) =>
    (await localSync(context)).localOnly(id, { limit, cursor }),

  "sync.localOnly.push": async (args, context) => {
    const sync = await localSync(context);
    const queued = await changing(context, () =>
      sync.pushLocalOnly(args.id, "all" in args ? { all: true } : { keys: args.keys }),
    );
    return { queued };
  },

  "sync.localAccounts": async (_args, context) => (await localClient(context)).accounts(),

  "sync.remoteAccounts": async ({ profileId }, context) =>
    (await clientOf(context, remoteProfileOrFail(context, profileId))).accounts(),
};
