import { useLayoutEffect, useRef, useState } from "react";
import { middleCut } from "./middleCut.ts";
import { widthIn } from "./textWidth.ts";

/**
 * A key's name in the Keys table, opening its details: whole in up to two lines; a name longer
 * than that is cut in its middle (middleCut), so that names differing only at their end (a shard,
 * a number, a roll's time) never look the same. The whole name stays its accessible name and its
 * cell's tooltip. Whether it fits is asked of the layout itself (the browser's line breaking), at
 * every width the column takes.
 */

export function KeyNameButton(props: { name: string; onClick(): void }) {
  const ref = useRef<HTMLButtonElement>(null);
  const [width, setWidth] = useState(0);
  const [cut, setCut] = useState<{ for: string; text: string } | null>(null);
  const shownFor = `${width}|${props.name}`;
  const shown = cut?.for === shownFor ? cut.text : null;

  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    setWidth(element.clientWidth);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    const element = ref.current;
    // Measured while the whole name is shown (a cut made for another width or name is not).
    if (!element || width === 0 || cut?.for === shownFor) return;
    if (element.scrollHeight <= element.clientHeight + 1) return;
    // Two lines broken anywhere (the cut form breaks between any characters), less a character
    // per line for where a line ends short.
    const style = getComputedStyle(element);
    const measure = widthIn(style.font);
    const room = 2 * (element.clientWidth - measure("W"));
    setCut({ for: shownFor, text: middleCut(props.name, room, measure) });
  }, [shownFor, cut, width, props.name]);

  return (
    <button
      ref={ref}
      type="button"
      className="kd-keys-name"
      data-cut={shown !== null}
      onClick={props.onClick}
      aria-label={`Details of ${props.name}`}
      data-testid="key-name"
    >
      {shown ?? props.name}
    </button>
  );
}
