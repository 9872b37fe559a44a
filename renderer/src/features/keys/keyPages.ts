import type { InfiniteData } from "@tanstack/react-query";
import type { ApiKeyView, KeyPageDto, KeyQueryDto } from "../../../../shared/bridge.ts";
import { filterKeys, type KeyFilters, nameNeedle } from "./keyState.ts";

/**
 * The keys view's paging, pure so that it can be tested without a browser: the bridge query of
 * the filters, the rows of the pages loaded so far, a key changed inside them, and the count line.
 */

export type KeyPages = InfiniteData<KeyPageDto, unknown>;

/** What the service narrows the pages by (the same rules as filterKeys). */
export function keyQueryOf(filters: KeyFilters): KeyQueryDto {
  // A key id, publicApiKey or hint is looked up (keySearch.ts), not searched in names.
  const name = nameNeedle(filters.name);
  return {
    ...(filters.state !== "all" && { state: filters.state }),
    ...(filters.permission !== "any" && { permission: filters.permission }),
    ...(name !== "" && { nameContains: name }),
    ...(filters.unusedForDays !== undefined && { unusedForDays: filters.unusedForDays }),
  };
}

/**
 * The filters of a bridge query (to narrow rows already loaded the way the service would).
 * @internal Exported for tests.
 */
export function filtersOf(query: KeyQueryDto): KeyFilters {
  return {
    state: query.state ?? "all",
    permission: query.permission ?? "any",
    name: query.nameContains ?? "",
    ...(query.unusedForDays !== undefined && { unusedForDays: query.unusedForDays }),
  };
}

export function isFiltered(query: KeyQueryDto): boolean {
  return (
    query.state !== undefined ||
    query.permission !== undefined ||
    query.nameContains !== undefined ||
    query.unusedForDays !== undefined
  );
}

/** The rows of every page loaded so far, in order. */
export function rowsOf(data: KeyPages | undefined): ApiKeyView[] {
  return data ? data.pages.flatMap((page) => page.keys) : [];
}

/**
 * The rows with the key just created on top when no loaded page has it (the 301st key of an
 * account whose first 200 are loaded): the admin sees the key they made at once, marked, without
 * loading every page; once a loaded page has it, it is shown there alone.
 */
export function withJustCreated<K extends { key: string }>(
  rows: readonly K[],
  created: K | null,
): readonly K[] {
  if (created === null || rows.some((row) => row.key === created.key)) return rows;
  return [created, ...rows];
}

/**
 * The pages with `key` as the service now answers it: replaced where it is, or left out when it
 * no longer matches the pages' query (a key disabled while only enabled keys are listed).
 */
export function withKeyChanged(
  data: KeyPages | undefined,
  changed: ApiKeyView,
  query: KeyQueryDto = {},
): KeyPages | undefined {
  if (!data) return data;
  const keep = filterKeys([changed], filtersOf(query)).length === 1;
  let touched = false;
  const pages = data.pages.map((page) => {
    if (!page.keys.some((each) => each.key === changed.key)) return page;
    touched = true;
    return {
      ...page,
      keys: keep
        ? page.keys.map((each) => (each.key === changed.key ? withListExtras(changed, each) : each))
        : page.keys.filter((each) => each.key !== changed.key),
    };
  });
  return touched ? { ...data, pages } : data;
}

/**
 * The changed key as its row shows it: an update's answer carries the key's fields, not what a list
 * adds (its usage, its creation time), which the change does not alter; the row keeps those.
 */
function withListExtras(changed: ApiKeyView, row: ApiKeyView): ApiKeyView {
  return {
    ...changed,
    ...(changed.usage === undefined && row.usage !== undefined && { usage: row.usage }),
    ...(changed.createdAt === undefined && row.createdAt !== undefined && { createdAt: row.createdAt }),
  };
}

/** The pages with one key's enabled flag set (the optimistic step of a toggle; the row stays). */
export function withKeyEnabled(
  data: KeyPages | undefined,
  key: string,
  enabled: boolean,
): KeyPages | undefined {
  if (!data) return data;
  const found = data.pages.flatMap((page) => page.keys).find((each) => each.key === key);
  return found ? withKeyChanged(data, { ...found, enabled }) : data;
}

const number = (n: number) => n.toLocaleString("en-US");
const keys = (n: number) => `${number(n)} ${n === 1 ? "key" : "keys"}`;

/**
 * The line above the table: "N keys", or "M of N keys" under filters; "…" for a number not
 * counted yet. `loadedAll`: every page of the filtered list is loaded, so its rows are the count.
 */
export function countLine(input: {
  filtered: boolean;
  rows: number;
  loadedAll: boolean;
  total: number | undefined;
  matching: number | undefined;
}): string {
  const matching = input.loadedAll ? input.rows : input.matching;
  if (!input.filtered)
    return matching === undefined && input.total === undefined
      ? "Counting keys…"
      : keys(matching ?? input.total ?? 0);
  if (input.total === undefined)
    return matching === undefined ? "Counting keys…" : `${number(matching)} of … keys`;
  if (matching === input.total) return keys(input.total);
  return `${matching === undefined ? "…" : number(matching)} of ${keys(input.total)}`;
}
