import { createContext, useContext } from "react";

/** The fixed header's height in px (App lays it out): what a view's sticky parts sit below. */
export const AppHeaderHeightContext = createContext(0);

export function useAppHeaderHeight(): number {
  return useContext(AppHeaderHeightContext);
}
