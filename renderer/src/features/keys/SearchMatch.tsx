import { Button, Code, Group, Paper, Text } from "@mantine/core";
import { type AccountDto, type ApiKeyView, KEY_FRAGMENT_MIN } from "../../../../shared/bridge.ts";
import { useKeyAccountElsewhere, useKeyById, useKeyByPublicApiKey, useKeysByFragment } from "./keyHooks.ts";
import { fragmentOf, keysWithHintAnywhere, type SearchTarget, searchTargetOf } from "./keySearch.ts";
import { KEY_STATE_LABELS, keyState } from "./keyState.ts";

const FOUND_BY = { keyId: "key id", publicApiKey: "publicApiKey", hint: "publicApiKey hint" } as const;
type FoundBy = keyof typeof FOUND_BY | "keyIdPart" | "publicApiKeyPart";
const FOUND_BY_WORDS: Record<FoundBy, string> = {
  ...FOUND_BY,
  keyIdPart: "part of its key id",
  publicApiKeyPart: "part of its publicApiKey",
};

/**
 * The keys the search text names (by key id, publicApiKey or hint), or whose key id or
 * publicApiKey holds it (a piece cut short in a log), each with how it was found.
 */
export interface SearchMatchesFound {
  target: SearchTarget;
  found: { key: ApiKeyView; foundBy: FoundBy }[];
  keys: ApiKeyView[];
  /** Settled, and worth a line above the table. */
  shown: boolean;
  /** Keys searched for a piece, when the account has more. */
  searched?: number | undefined;
  /** Another account of the profile that has the publicApiKey searched for, when this one has not. */
  elsewhere?: AccountDto | undefined;
}

export function useSearchMatches(
  accountKey: string,
  text: string,
  loaded: readonly ApiKeyView[],
): SearchMatchesFound {
  const target = searchTargetOf(text);
  const byId = useKeyById(accountKey, target.kind === "keyId" ? target.id : null);
  const byPublicApiKey = useKeyByPublicApiKey(
    accountKey,
    target.kind === "publicApiKey" && target.value.length <= 200 ? target.value : null,
  );
  // A hint's start of six characters is searched for in the whole account (through main), not only
  // in the pages loaded: the 301st key's hint is found like the first's.
  const hintStart = target.kind === "hint" ? (target.hint.split("…")[0] ?? "") : "";
  const fragment = fragmentOf(text) ?? (hintStart.length >= KEY_FRAGMENT_MIN ? hintStart : null);
  const byFragment = useKeysByFragment(accountKey, fragment);
  // A whole publicApiKey this account has not: perhaps another account of the profile has it.
  const elsewhere = useKeyAccountElsewhere(
    accountKey,
    target.kind === "publicApiKey" && byPublicApiKey.data === null ? target.value : null,
  );
  if (target.kind === "keyId" || target.kind === "hint") {
    const keys =
      target.kind === "hint"
        ? keysWithHintAnywhere(
            loaded,
            (byFragment.data?.matches ?? []).map((match) => match.key),
            target.hint,
          )
        : [byId.data].filter((key): key is ApiKeyView => key !== undefined && key !== null);
    const foundBy = target.kind;
    const pending = target.kind === "hint" ? byFragment.isFetching : byId.isFetching;
    return { target, found: keys.map((key) => ({ key, foundBy })), keys, shown: !pending };
  }
  // A whole publicApiKey found is the answer; else the keys holding the text as a piece, if any.
  const exact = byPublicApiKey.data ? [{ key: byPublicApiKey.data, foundBy: "publicApiKey" as const }] : [];
  const pieces = (byFragment.data?.matches ?? []).map((match) => ({
    key: match.key,
    foundBy: match.foundBy === "keyId" ? ("keyIdPart" as const) : ("publicApiKeyPart" as const),
  }));
  const found: { key: ApiKeyView; foundBy: FoundBy }[] = exact.length > 0 ? exact : pieces;
  const pending = byPublicApiKey.isFetching || byFragment.isFetching || elsewhere.isFetching;
  const foundElsewhere = exact.length === 0 ? (elsewhere.data ?? undefined) : undefined;
  // Text none has as a publicApiKey, or as a piece of one, is a name search only: no "nothing found"
  // above rows whose names match it.
  const shown = !pending && (found.length > 0 || foundElsewhere !== undefined);
  const partial = exact.length === 0 && byFragment.data !== undefined && !byFragment.data.complete;
  return {
    target,
    found,
    keys: found.map((each) => each.key),
    shown,
    searched: partial ? byFragment.data?.searched : undefined,
    elsewhere: foundElsewhere,
  };
}

/** The keys found by id, publicApiKey, hint or a piece of one, above the table (they may not be in its rows). */
export function SearchMatches(props: {
  kind: keyof typeof FOUND_BY;
  found: readonly { key: ApiKeyView; foundBy: FoundBy }[];
  /** Keys searched for a piece, when the account has more than were searched. */
  searched?: number | undefined;
  /** Another account of the profile that has the publicApiKey searched for. */
  elsewhere?: AccountDto | undefined;
  onDetails(key: ApiKeyView): void;
}) {
  const now = Date.now();
  return (
    <Paper withBorder p="xs" data-testid="search-matches" aria-live="polite">
      {props.found.length === 0 ? (
        <Text size="sm">
          No key of this account has that {FOUND_BY[props.kind]}
          {props.elsewhere ? (
            <span data-testid="search-found-elsewhere">
              : it is a key of{" "}
              {props.elsewhere.parentAccountKey === null ? "the own account" : "the sub-account"}{" "}
              <strong>{props.elsewhere.username}</strong>; choose that account in the header to see it.
            </span>
          ) : (
            "."
          )}
        </Text>
      ) : (
        props.found.slice(0, 5).map(({ key, foundBy }) => (
          <Group key={key.key} gap="xs" wrap="nowrap">
            <Text size="sm" truncate title={key.name}>
              Found by {FOUND_BY_WORDS[foundBy]}: <strong>{key.name}</strong> (<Code>{key.key}</Code>,{" "}
              {KEY_STATE_LABELS[keyState(key, now)].toLowerCase()})
            </Text>
            <Button
              size="compact-sm"
              variant="light"
              style={{ flexShrink: 0 }}
              onClick={() => props.onDetails(key)}
              aria-label={`Details of ${key.name}`}
            >
              Details
            </Button>
          </Group>
        ))
      )}
      {props.found.length > 5 && (
        <Text size="xs" c="dimmed">
          and {props.found.length - 5} more, in the table below
        </Text>
      )}
      {props.searched !== undefined && (
        <Text size="xs" c="dimmed" data-testid="search-matches-partial">
          Searched the first {props.searched.toLocaleString()} keys of the account for the piece.
        </Text>
      )}
    </Paper>
  );
}
