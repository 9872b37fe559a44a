import { createContext, useContext } from "react";

export type View = "keys" | "profiles" | "pins" | "tfa" | "sync" | "settings";

/** What a view may ask of the app: to show another view, and there one thing (a key's sync state). */
export interface Navigation {
  open(view: View, target?: { syncKey?: string; editProfile?: string }): void;
  /** The key whose sync state the Sync view was opened for, if any. */
  syncKey: string | undefined;
  /** The profile whose edit form the Profiles view was opened for, if any. */
  editProfile: string | undefined;
}

export const NavigationContext = createContext<Navigation>({
  open: () => {},
  syncKey: undefined,
  editProfile: undefined,
});

export function useNavigation(): Navigation {
  return useContext(NavigationContext);
}
