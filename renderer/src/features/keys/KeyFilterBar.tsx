import { Group, NativeSelect, TextInput } from "@mantine/core";
import type { Dispatch, SetStateAction } from "react";
import { KEY_STATE_FILTERS, type KeySort } from "../../../../shared/apiKeyRules.ts";
import { type KeyFilters, STATE_FILTER_LABELS } from "./keyState.ts";
import { UNUSED_CHOICES, unusedLabel } from "./keyUsage.ts";

export const NAME_SEARCH_ID = "key-name-search";

const SORT_OPTIONS: { value: string; label: string; sort: KeySort }[] = [
  { value: "created", label: "Oldest first", sort: { by: "created", desc: false } },
  { value: "-created", label: "Newest first", sort: { by: "created", desc: true } },
  { value: "name", label: "Name A–Z", sort: { by: "name", desc: false } },
  { value: "-name", label: "Name Z–A", sort: { by: "name", desc: true } },
  // Said as the service orders: by the end of validity, so keys that already ended come first (the
  // State filter's "Expiring soon" is the list of keys about to end); no end sorts after every date.
  { value: "validTo", label: "Valid to: ended first", sort: { by: "validTo", desc: false } },
  { value: "-validTo", label: "Valid to: no end first", sort: { by: "validTo", desc: true } },
  // The service orders by the state the State column shows: working keys (enabled and valid now,
  // the soonest ending first), then not yet valid, expired, disabled; or the other way round.
  { value: "state", label: "State: working first", sort: { by: "state", desc: false } },
  { value: "-state", label: "State: disabled first", sort: { by: "state", desc: true } },
];
export const sortValue = (sort: KeySort) => `${sort.desc ? "-" : ""}${sort.by}`;
export const DEFAULT_SORT: KeySort = { by: "created", desc: false };

const STATE_OPTIONS = [
  { value: "all", label: "All" },
  ...KEY_STATE_FILTERS.map((value) => ({ value, label: STATE_FILTER_LABELS[value] })),
];

const UNUSED_OPTIONS = [
  { value: "any", label: "Any" },
  ...UNUSED_CHOICES.map((days) => ({ value: String(days), label: unusedLabel(days) })),
];

/**
 * The Keys view's search, filters and sort. Native selects: each is one element with its options,
 * where a combobox mounts a popover and its positioning per field (the first rows of a large
 * account waited for them), and the system's own list is at home with the keyboard.
 */
export function KeyFilterBar(props: {
  filters: KeyFilters;
  onFiltersChange: Dispatch<SetStateAction<KeyFilters>>;
  sort: KeySort;
  onSortChange(sort: KeySort): void;
}) {
  return (
    <Group align="flex-end" gap="sm" role="search" aria-label="Filter keys">
      <TextInput
        id={NAME_SEARCH_ID}
        label="Search"
        placeholder="Name, key id or publicApiKey (press /)"
        aria-keyshortcuts="/"
        value={props.filters.name}
        onChange={(event) => {
          const name = event.currentTarget.value;
          props.onFiltersChange((current) => ({ ...current, name }));
        }}
        // Lines break on the 300 px basis, not on the narrowest the field may get, so a narrow
        // window puts the filters that do not fit beside a readable search on the next line
        // instead of shrinking the search until its placeholder is cut.
        style={{ flex: "1 1 300px", minWidth: 140 }}
      />
      <NativeSelect
        label="State"
        w={160}
        value={props.filters.state}
        onChange={(event) => {
          const state = event.currentTarget.value as KeyFilters["state"];
          props.onFiltersChange((current) => ({ ...current, state }));
        }}
        data={STATE_OPTIONS}
      />
      <NativeSelect
        label="Not used for"
        w={110}
        value={props.filters.unusedForDays === undefined ? "any" : String(props.filters.unusedForDays)}
        onChange={(event) => {
          const value = event.currentTarget.value;
          props.onFiltersChange(({ unusedForDays: _, ...current }) =>
            value === "any" ? current : { ...current, unusedForDays: Number(value) },
          );
        }}
        data={UNUSED_OPTIONS}
      />
      <NativeSelect
        label="Sort"
        w={204}
        value={sortValue(props.sort)}
        onChange={(event) => {
          const value = event.currentTarget.value;
          props.onSortChange(SORT_OPTIONS.find((option) => option.value === value)?.sort ?? DEFAULT_SORT);
        }}
        data={SORT_OPTIONS.map(({ value, label }) => ({ value, label }))}
      />
      <NativeSelect
        label="Permission"
        w={120}
        value={props.filters.permission}
        onChange={(event) => {
          const permission = event.currentTarget.value as KeyFilters["permission"];
          props.onFiltersChange((current) => ({ ...current, permission }));
        }}
        data={[
          { value: "any", label: "Any" },
          { value: "ALL", label: "ALL" },
          { value: "TFA", label: "TFA" },
        ]}
      />
    </Group>
  );
}
