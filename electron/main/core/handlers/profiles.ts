import { randomUUID } from "node:crypto";
import { formatApiDateTime } from "../../../../shared/datetime.ts";
import { KeyServiceClient } from "../../../client/keyServiceClient.ts";
import { vaultAccounts } from "../../../vault/credentialVault.ts";
import {
  activeProfile,
  type CoreContext,
  clientOf,
  type HandlerTable,
  profileOrFail,
  toProfileDto,
} from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";
import { LOCAL_PROFILE_ID } from "../profileStore.ts";
import { updateLinkCredentials } from "./sync.ts";

type ProfileMethods =
  | "profiles.list"
  | "profiles.add"
  | "profiles.edit"
  | "profiles.remove"
  | "profiles.test"
  | "profiles.activate"
  | "profiles.revealLocalCredentials"
  | "profiles.checkActive";

function activate(context: CoreContext, id: string): void {
  context.store.update((settings) => {
    settings.activeProfileId = id;
  });
  context.emit({ type: "profile-changed", activeProfileId: id });
}

/** Connection profiles: the Local one (embedded service) and remote ones. Passwords go to the vault. */
export const profileHandlers: HandlerTable<ProfileMethods> = {
  "profiles.list": async (_args, context) =>
    context.store.profiles().map((profile) => toProfileDto(context, profile)),

  "profiles.add": async ({ name, baseUrl, username, password }, context) => {
    const profile = { id: randomUUID(), name, kind: "remote" as const, baseUrl, username };
    await context.vault.set(vaultAccounts.profilePassword(profile.id), password);
    context.store.upsertProfile(profile);
    return toProfileDto(context, profile);
  },

  "profiles.edit": async ({ id, name, baseUrl, username, password }, context) => {
    const profile = profileOrFail(context, id);
    if (profile.kind === "local" && (baseUrl ?? username ?? password) !== undefined) {
      throw new CoreFailure(
        "NOT_SUPPORTED",
        "the Local profile's address and credentials belong to the embedded service; only its name can change",
      );
    }
    const edited = {
      ...profile,
      ...(name !== undefined && { name }),
      ...(baseUrl !== undefined && { baseUrl }),
      ...(username !== undefined && { username }),
    };
    if (password !== undefined) await context.vault.set(vaultAccounts.profilePassword(id), password);
    context.store.upsertProfile(edited);
    // Sync links that use these credentials get the new ones (a link paused by a 401 resumes).
    await updateLinkCredentials(context, profile, edited, password);
    return toProfileDto(context, edited);
  },

  "profiles.remove": async ({ id }, context) => {
    const profile = profileOrFail(context, id);
    if (profile.kind === "local") {
      throw new CoreFailure("NOT_SUPPORTED", "the Local profile cannot be removed");
    }
    const wasActive = activeProfile(context).id === id;
    context.store.update((settings) => {
      settings.profiles = settings.profiles.filter((candidate) => candidate.id !== id);
      if (wasActive) settings.activeProfileId = LOCAL_PROFILE_ID;
    });
    await context.vault.delete(vaultAccounts.profilePassword(id));
    if (wasActive) context.emit({ type: "profile-changed", activeProfileId: LOCAL_PROFILE_ID });
    return null;
  },

  "profiles.test": async (args, context) => {
    const client =
      "id" in args
        ? await clientOf(context, profileOrFail(context, args.id))
        : new KeyServiceClient({ baseUrl: args.baseUrl, username: args.username, password: args.password });
    return client.testConnection();
  },

  "profiles.activate": async ({ id }, context) => {
    const profile = profileOrFail(context, id);
    activate(context, id);
    return toProfileDto(context, profile);
  },

  "profiles.revealLocalCredentials": async (_args, context) => {
    const local = profileOrFail(context, LOCAL_PROFILE_ID);
    const password = await context.vault.get(vaultAccounts.profilePassword(LOCAL_PROFILE_ID));
    if (password === null) {
      throw new CoreFailure("NO_KEYCHAIN", "the Local profile's password is not in the keychain");
    }
    return { baseUrl: context.service.url, username: local.username, password };
  },

  /** The active profile and whether its service answers now (the header polls this). */
  "profiles.checkActive": async (_args, context) => {
    const profile = activeProfile(context);
    const verdict = await (await clientOf(context, profile)).testConnection();
    return { profile: toProfileDto(context, profile), verdict, checkedAt: formatApiDateTime(Date.now()) };
  },
};
