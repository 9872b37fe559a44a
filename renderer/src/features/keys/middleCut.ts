/**
 * A text cut in its middle to fit: `Payments worker for the EU-west…shard 001`. Names that differ
 * only at their end (a shard, a number, a roll's time) stay told apart where an end cut would make
 * them look the same. `width` measures a text as it is drawn.
 */

/** The part of the width the kept end may take (the rest is the start, then "…"). */
const END_SHARE = 0.4;
const ELLIPSIS = "…";

/** Cut to one line of `maxWidth`. */
export function middleCut(text: string, maxWidth: number, width: (text: string) => number): string {
  return middleCutToFit(text, maxWidth * END_SHARE, width, (candidate) => width(candidate) <= maxWidth);
}

/**
 * Cut to whatever `fits` accepts (the layout itself, asked of each candidate: where a line breaks
 * is the browser's, at spaces first, which no width sum foresees). The end kept is the longest no
 * wider than `endWidth` (shorter if the layout cannot hold it with "…"), then the start is the
 * longest that fits with it.
 */
export function middleCutToFit(
  text: string,
  endWidth: number,
  width: (text: string) => number,
  fits: (candidate: string) => boolean,
): string {
  if (fits(text)) return text;
  const chars = [...text];
  const cut = (start: number, end: number) =>
    `${chars.slice(0, start).join("").trimEnd()}${ELLIPSIS}${chars
      .slice(chars.length - end)
      .join("")
      .trimStart()}`;
  let endCount = 0;
  while (endCount < chars.length - 1 && width(chars.slice(-(endCount + 1)).join("")) <= endWidth) endCount++;
  while (endCount > 0 && !fits(cut(0, endCount))) endCount--;
  // The longest start that fits (low always does: it starts at none).
  let low = 0;
  let high = chars.length - endCount;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(cut(mid, endCount))) low = mid;
    else high = mid - 1;
  }
  return cut(low, endCount);
}
