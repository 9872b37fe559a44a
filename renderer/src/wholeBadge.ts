/**
 * Styles of a badge that always reads whole: it keeps its width in a tight row or cell instead of
 * ending in "…" ("5 ATTEMP…", "• C…"); the row wraps or the cell grows instead.
 */
export const WHOLE_BADGE = {
  root: { maxWidth: "none", flexShrink: 0, overflow: "visible" },
  label: { overflow: "visible", textOverflow: "clip" },
} as const;
