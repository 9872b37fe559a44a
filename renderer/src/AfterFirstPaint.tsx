import { type ReactNode, useEffect, useState } from "react";

/**
 * Renders its children once the page has drawn its first frame. For what nothing on the first
 * screen needs: the notifications' six position containers (each a portal and a transition group)
 * took about 40 ms of the page's thread before the first rows of a large account could show. A
 * notification shown before they mount waits in Mantine's store and appears when they do.
 */
export function AfterFirstPaint(props: { children: ReactNode }) {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    // The frame after the next one: the first one, with the rows, is drawn by then.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => setPainted(true));
    });
    return () => cancelAnimationFrame(frame);
  }, []);
  return painted ? props.children : null;
}
