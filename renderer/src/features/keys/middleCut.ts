/**
 * A text cut in its middle to fit a width: `Payments worker for the EU-west…shard 001`. Names that
 * differ only at their end (a shard, a number, a roll's time) stay told apart where an end cut
 * would make them look the same. `width` measures a text as it is drawn.
 */

/** The part of the width the kept end may take (the rest is the start, then "…"). */
const END_SHARE = 0.4;
const ELLIPSIS = "…";

export function middleCut(text: string, maxWidth: number, width: (text: string) => number): string {
  if (width(text) <= maxWidth) return text;
  const chars = [...text];
  // The longest end within its share, then the longest start that fits with it.
  let endCount = 0;
  while (endCount < chars.length - 1 && width(chars.slice(-(endCount + 1)).join("")) <= maxWidth * END_SHARE)
    endCount++;
  const end = chars.slice(chars.length - endCount).join("");
  let low = 0;
  let high = chars.length - endCount;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (width(`${chars.slice(0, mid).join("")}${ELLIPSIS}${end}`) <= maxWidth) low = mid;
    else high = mid - 1;
  }
  return `${chars.slice(0, low).join("").trimEnd()}${ELLIPSIS}${end.trimStart()}`;
}
