/**
 * Which columns the keys table shows at a width, and how wide each is. The table never scrolls
 * sideways: columns drop, least needed first, as the table narrows (every field stays in the
 * details panel), so the name and the row's actions are always on screen. Pure, so that the
 * break points can be tested without a browser.
 */

import type { KeySortField } from "../../../../shared/apiKeyRules.ts";

export type ColumnId =
  | "name"
  | "permissions"
  | "state"
  | "validTo"
  | "lastUsed"
  | "created"
  | "hint"
  | "keyId"
  | "ips"
  | "actions";

interface Column {
  id: ColumnId;
  header: string;
  /** What a click on the header sorts by. */
  sort?: KeySortField;
  /** A CSS grid track. */
  track: string;
  /** The table's width (px) from which the column is shown; 0: always. */
  from: number;
}

/**
 * The actions (Copy, Reveal, Edit, the switch) take this much, whatever the width: with DejaVu
 * Sans, the font a Linux desktop without others falls back to and the widest here, they need 243
 * px with the cell's padding (at 236 px their labels were cut by 2–3 px each in Chromium 156).
 */
const ACTIONS_WIDTH = 252;

const COLUMNS: readonly Column[] = [
  { id: "name", header: "Name", sort: "name", track: "minmax(140px,1fr)", from: 0 },
  { id: "permissions", header: "Permissions", track: "112px", from: 830 },
  // "Not yet valid" whole (a state is never cut), with the dot and the cell's padding.
  { id: "state", header: "State", sort: "state", track: "136px", from: 0 },
  // A validity or a time reads on one line, never cut or wrapped (keyTable.css): the tracks fit the
  // longest phrase each column says in DejaVu Sans at 14 px, the widest font a Linux desktop falls
  // back to, with the cell's padding: "expired 11 months ago" and "refused 11 months ago" (163 px),
  // "11 months ago" (106 px).
  { id: "validTo", header: "Valid to", sort: "validTo", track: "180px", from: 710 },
  { id: "lastUsed", header: "Last used", track: "180px", from: 1000 },
  // From a 1440 px window whose page has a 15 px scroll bar beside it (a 1391 px table); the name
  // keeps 407 px there.
  { id: "created", header: "Created", sort: "created", track: "124px", from: 1380 },
  // The publicApiKey's hint (in the details, and searchable) comes after the name had its share and
  // the times their whole width: from about 1500 px.
  { id: "hint", header: "publicApiKey", track: "124px", from: 1480 },
  // The name takes the spare width first: the key id (in the details, and searchable) and the
  // allowed IPs come only when the name has had its share.
  { id: "keyId", header: "Key id", track: "minmax(110px,0.5fr)", from: 1560 },
  { id: "ips", header: "Allowed IPs", track: "minmax(110px,0.5fr)", from: 1480 },
  { id: "actions", header: "Actions", track: `${ACTIONS_WIDTH}px`, from: 0 },
];

export interface ColumnLayout {
  columns: { id: ColumnId; header: string; sort?: KeySortField }[];
  template: string;
}

export function columnsFor(width: number): ColumnLayout {
  const shown = COLUMNS.filter((column) => width >= column.from);
  return {
    columns: shown.map(({ id, header, sort }) => ({ id, header, ...(sort && { sort }) })),
    template: shown.map((column) => column.track).join(" "),
  };
}
