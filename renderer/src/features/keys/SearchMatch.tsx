import { Button, Code, Group, Paper, Text } from "@mantine/core";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { useKeyById, useKeyByPublicApiKey } from "./keyHooks.ts";
import { keysWithHint, searchTargetOf } from "./keySearch.ts";
import { KEY_STATE_LABELS, keyState } from "./keyState.ts";

const FOUND_BY = { keyId: "key id", publicApiKey: "publicApiKey", hint: "publicApiKey hint" } as const;

/** The keys the search text names exactly (by key id, publicApiKey or hint), with their ways in. */
export function useSearchMatches(accountKey: string, text: string, loaded: readonly ApiKeyView[]) {
  const target = searchTargetOf(text);
  const byId = useKeyById(accountKey, target.kind === "keyId" ? target.id : null);
  const byPublicApiKey = useKeyByPublicApiKey(
    accountKey,
    target.kind === "publicApiKey" && target.value.length <= 200 ? target.value : null,
  );
  if (target.kind === "name") return { target, keys: [], shown: false };
  const keys =
    target.kind === "hint"
      ? keysWithHint(loaded, target.hint)
      : [target.kind === "keyId" ? byId.data : byPublicApiKey.data].filter(
          (key): key is ApiKeyView => key !== undefined && key !== null,
        );
  const pending = target.kind === "keyId" ? byId.isFetching : byPublicApiKey.isFetching;
  // Text read as a publicApiKey that none has is a name search only: no "nothing found" above rows
  // whose names match it.
  const shown = !pending && (target.kind !== "publicApiKey" || keys.length > 0);
  return { target, keys, pending, shown };
}

/** The keys found by id, publicApiKey or hint, above the table (they may not be in its rows). */
export function SearchMatches(props: {
  kind: keyof typeof FOUND_BY;
  keys: readonly ApiKeyView[];
  onDetails(key: ApiKeyView): void;
}) {
  const now = Date.now();
  return (
    <Paper withBorder p="xs" data-testid="search-matches" aria-live="polite">
      {props.keys.length === 0 ? (
        <Text size="sm">No key of this account has that {FOUND_BY[props.kind]}.</Text>
      ) : (
        props.keys.slice(0, 5).map((key) => (
          <Group key={key.key} gap="xs" wrap="nowrap">
            <Text size="sm" truncate title={key.name}>
              Found by {FOUND_BY[props.kind]}: <strong>{key.name}</strong> (<Code>{key.key}</Code>,{" "}
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
    </Paper>
  );
}
