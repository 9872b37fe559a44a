import { type RefObject, useLayoutEffect, useState } from "react";

/**
 * An element's top in the page (not the window), measured again when anything above it changes
 * size (filters wrapping, a banner, the window): where the keys table's rows begin in the page,
 * which scrolls them.
 */
export function usePageTop(element: RefObject<HTMLElement | null>): number {
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const box = element.current?.getBoundingClientRect();
      if (box) setTop(Math.round(box.top + window.scrollY));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    window.addEventListener("resize", measure);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", measure);
    };
  }, [element]);
  return top;
}
