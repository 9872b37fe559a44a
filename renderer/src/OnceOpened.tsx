import { type ReactNode, useEffect, useRef, useState } from "react";

/**
 * Renders a dialog from the first time it opens on, and keeps it afterwards (so that it closes
 * with its transition). A closed Mantine modal still runs its hooks on every render: the Keys view
 * holds nine, and mounting them all cost its first rows about 60 ms of the page's thread.
 *
 * Mantine's returnFocus notes the element that had the focus when `opened` changes to true, not
 * when a dialog is mounted open, as here the first time: so this notes it for that first opening
 * and gives it the focus back on its close, as Mantine does for the later ones (10 ms after the
 * close, unless something else took the focus meanwhile).
 */
export function OnceOpened(props: { opened: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(props.opened);
  const opener = useRef<Element | null>(props.opened ? document.activeElement : null);
  if (props.opened && !opened) {
    // Read while rendering: before the dialog's focus trap moves the focus into it.
    opener.current = document.activeElement;
    setOpened(true);
  }
  useEffect(() => {
    const element = opener.current;
    if (props.opened || !(element instanceof HTMLElement)) return;
    opener.current = null;
    const atClose = document.activeElement;
    const timer = setTimeout(() => {
      const now = document.activeElement;
      if (now === null || now === document.body || now === atClose) element.focus({ preventScroll: true });
    }, 10);
    return () => clearTimeout(timer);
  }, [props.opened]);
  return opened || props.opened ? props.children : null;
}
