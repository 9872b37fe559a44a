import type { ApiKeyView, KeyQueryDto } from "../../../../shared/bridge.ts";

/**
 * The keys selected for a bulk action, as data: either keys named one by one (checkboxes,
 * shift-click ranges), or every key matching the filter but some (the service pages the list, so
 * "all matching" is sent to main as the filter, never as every key). Pure, tested without a browser.
 */
export type KeySelection =
  | { mode: "keys"; keys: ReadonlySet<string>; anchor: string | null }
  | { mode: "matching"; except: ReadonlySet<string>; anchor: string | null };

export const NOTHING_SELECTED: KeySelection = { mode: "keys", keys: new Set(), anchor: null };

export function isSelected(selection: KeySelection, key: string): boolean {
  return selection.mode === "keys" ? selection.keys.has(key) : !selection.except.has(key);
}

/** How many keys are selected; `matching` is how many the filter matches (undefined: not counted yet). */
export function selectedCount(selection: KeySelection, matching: number | undefined): number | undefined {
  if (selection.mode === "keys") return selection.keys.size;
  return matching === undefined ? undefined : Math.max(0, matching - selection.except.size);
}

/**
 * How many of the selected keys a bulk enable (`enabled` true) or disable changes: those not in
 * that state already. Named keys are counted from the loaded rows (a key not among them counts as
 * changing); "all matching" from `otherState`, how many keys the filter matches in the other
 * state (undefined: not counted yet), less the exceptions in that state.
 */
export function changingCount(
  selection: KeySelection,
  rows: readonly Pick<ApiKeyView, "key" | "enabled">[],
  enabled: boolean,
  otherState: number | undefined,
): number | undefined {
  const loaded = new Map(rows.map((row) => [row.key, row.enabled]));
  if (selection.mode === "keys") {
    return [...selection.keys].filter((key) => loaded.get(key) !== enabled).length;
  }
  if (otherState === undefined) return undefined;
  const exceptChanging = [...selection.except].filter((key) => loaded.get(key) === !enabled).length;
  return Math.max(0, otherState - exceptChanging);
}

function withKeys(
  selection: KeySelection,
  keys: readonly string[],
  selected: boolean,
  anchor: string,
): KeySelection {
  if (selection.mode === "keys") {
    const next = new Set(selection.keys);
    for (const key of keys) selected ? next.add(key) : next.delete(key);
    return { mode: "keys", keys: next, anchor };
  }
  const except = new Set(selection.except);
  for (const key of keys) selected ? except.delete(key) : except.add(key);
  return { mode: "matching", except, anchor };
}

/**
 * A checkbox clicked: that key, or with shift the rows from the last one clicked to it (in the
 * order shown), all set to `selected`.
 */
export function selectKey(
  selection: KeySelection,
  rows: readonly Pick<ApiKeyView, "key">[],
  key: string,
  selected: boolean,
  range: boolean,
): KeySelection {
  const at = rows.findIndex((row) => row.key === key);
  const from =
    range && selection.anchor !== null ? rows.findIndex((row) => row.key === selection.anchor) : -1;
  if (at === -1 || from === -1) return withKeys(selection, [key], selected, key);
  const [start, end] = from < at ? [from, at] : [at, from];
  return withKeys(
    selection,
    rows.slice(start, end + 1).map((row) => row.key),
    selected,
    key,
  );
}

/** The header's checkbox: every loaded row in or out (a "matching" selection stays one). */
export function selectLoaded(
  selection: KeySelection,
  rows: readonly Pick<ApiKeyView, "key">[],
  selected: boolean,
) {
  return withKeys(
    selection,
    rows.map((row) => row.key),
    selected,
    selection.anchor ?? "",
  );
}

/** What keys.bulkSetEnabled is sent: the keys named, or the filter and its exceptions. */
export function bulkSelectionOf(
  selection: KeySelection,
  query: KeyQueryDto,
): { keys: string[] } | { query: KeyQueryDto; except: string[] } {
  return selection.mode === "keys" ? { keys: [...selection.keys] } : { query, except: [...selection.except] };
}
