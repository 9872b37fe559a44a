import { useLayoutEffect, useRef, useState } from "react";
import { middleCutToFit } from "./middleCut.ts";
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
    setCut({ for: shownFor, text: cutToFit(element, props.name) });
  }, [shownFor, cut, width, props.name]);

  return (
    <button
      ref={ref}
      type="button"
      className="kd-keys-name"
      data-cut={shown !== null}
      onClick={props.onClick}
      aria-label={`Details of ${props.name}`}
      // A cut name has its whole self on hover on the button itself: the cell's tooltip may add
      // a sync state to it, and is not the button's own accessible description.
      title={shown !== null ? props.name : undefined}
      data-testid="key-name"
    >
      {shown ?? props.name}
    </button>
  );
}

/**
 * The name cut in its middle to fit the button's two lines as the browser breaks them: at spaces
 * and hyphens, so that a line never ends inside a word ("partner-portal staging depl / o…tests 1"),
 * which a cut sized as if any character could end a line needed. Each candidate is laid out in a
 * hidden copy of the button, as wide, and kept if it takes no more than the two lines.
 */
function cutToFit(element: HTMLElement, name: string): string {
  const probe = element.cloneNode(false) as HTMLElement;
  for (const attribute of ["data-testid", "aria-label", "id"]) probe.removeAttribute(attribute);
  probe.setAttribute("aria-hidden", "true");
  Object.assign(probe.style, {
    position: "absolute",
    visibility: "hidden",
    pointerEvents: "none",
    width: `${element.clientWidth}px`,
  });
  (element.parentElement ?? document.body).append(probe);
  try {
    const measure = widthIn(getComputedStyle(element).font);
    // The end kept may take most of one line: "…n tests 1" beside the start on two.
    return middleCutToFit(name, 0.8 * element.clientWidth, measure, (candidate) => {
      probe.textContent = candidate;
      return probe.scrollHeight <= probe.clientHeight + 1;
    });
  } finally {
    probe.remove();
  }
}
