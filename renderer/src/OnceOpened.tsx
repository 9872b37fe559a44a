import { type ReactNode, useState } from "react";

/**
 * Renders a dialog from the first time it opens on, and keeps it afterwards (so that it closes
 * with its transition). A closed Mantine modal still runs its hooks on every render: the Keys view
 * holds nine, and mounting them all cost its first rows about 60 ms of the page's thread.
 */
export function OnceOpened(props: { opened: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(props.opened);
  if (props.opened && !opened) setOpened(true);
  return opened || props.opened ? props.children : null;
}
