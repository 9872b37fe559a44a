import { type RefObject, useEffect, useState } from "react";
import { useAppHeaderHeight } from "../../appHeaderHeight.ts";
import { tableHeight } from "./tableHeight.ts";

/**
 * The keys table's height (see tableHeight), measured again when the window or anything above
 * the table changes size (filters wrapping, a banner).
 */
export function useTableHeight(
  element: RefObject<HTMLElement | null>,
  sizes: { rowHeight: number; headRow: number },
): number | undefined {
  const [height, setHeight] = useState<number>();
  const { rowHeight, headRow } = sizes;
  const header = useAppHeaderHeight();
  useEffect(() => {
    const measure = () => {
      const box = element.current?.getBoundingClientRect();
      if (!box) return;
      setHeight(
        tableHeight({
          viewport: window.innerHeight,
          top: box.top + window.scrollY,
          header,
          rowHeight,
          headRow,
        }),
      );
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    window.addEventListener("resize", measure);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", measure);
    };
  }, [element, rowHeight, headRow, header]);
  return height;
}
