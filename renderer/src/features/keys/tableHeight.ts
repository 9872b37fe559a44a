/**
 * How tall the keys table's scroll box is. In a tall window it fills the window below what is
 * above it (the page does not scroll). In a short one (800×600) what is above it (header, tabs,
 * filters) would leave it three rows, so it is given at least MIN_ROWS rows, as many as fit under
 * the fixed header: the page then scrolls the filters away and the table fills the window.
 */

/** Rows a short window still shows once the page is scrolled to the table. */
const MIN_ROWS = 8;
/** Room left under the table (the page's bottom padding). */
const BOTTOM_GAP = 16;

export function tableHeight(room: {
  /** The window's height. */
  viewport: number;
  /** The table's top in the page (not the window): what is above it. */
  top: number;
  /** The fixed app header's height: what stays over the page when it scrolls. */
  header: number;
  rowHeight: number;
  /** The table's own header row. */
  headRow: number;
}): number {
  const fillRest = room.viewport - room.top - BOTTOM_GAP;
  const belowHeader = room.viewport - room.header - BOTTOM_GAP;
  const minRows = Math.min(MIN_ROWS * room.rowHeight + room.headRow, belowHeader);
  return Math.max(fillRest, minRows, 3 * room.rowHeight + room.headRow);
}
