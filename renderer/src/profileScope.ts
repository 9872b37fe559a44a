import { createContext, useContext } from "react";
import type { ProfileDto } from "../../shared/bridge.ts";

/**
 * The connection profile whose data the views show: every key, account and 2FA query and every
 * action names it (the bridge's `profile` argument), and main refuses an action named for a
 * profile that is no longer the active one. The views under it are mounted again when it changes,
 * so nothing opened for one profile's data (a dialog, a selection) acts on another's.
 */
export interface ProfileScope {
  id: string;
  name: string;
  kind: ProfileDto["kind"];
  /** A Mantine colour of its own: Local's is always the same, each remote's follows from its id. */
  color: string;
}

export const ProfileScopeContext = createContext<ProfileScope | null>(null);

/** The scope of the view this is rendered in (the App provides it once the active profile is known). */
export function useProfileScope(): ProfileScope {
  const scope = useContext(ProfileScopeContext);
  if (!scope) throw new Error("rendered outside a ProfileScopeContext");
  return scope;
}

const LOCAL_COLOR = "teal";
/**
 * Remote profiles' colours: none near Local's teal (no green, lime or cyan), none red (errors) or
 * yellow (warnings).
 */
const REMOTE_COLORS = ["grape", "orange", "indigo", "pink", "violet"] as const;

/** A profile's colour: stable across restarts (from its id), and Local's never a remote's. */
export function profileColor(profile: Pick<ProfileDto, "id" | "kind">): string {
  if (profile.kind === "local") return LOCAL_COLOR;
  let hash = 0;
  for (const char of profile.id) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return REMOTE_COLORS[hash % REMOTE_COLORS.length] as string;
}

export function scopeOf(profile: Pick<ProfileDto, "id" | "name" | "kind">): ProfileScope {
  return { id: profile.id, name: profile.name, kind: profile.kind, color: profileColor(profile) };
}
