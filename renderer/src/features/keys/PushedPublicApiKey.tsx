import { Alert, Button, Group, Loader, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { callBridge } from "../../bridgeHooks.ts";
import { useProfileScope } from "../../profileScope.ts";
import { useActingOn } from "../accounts/ActingOn.tsx";
import { newKeyOnRemote, type SyncRemote } from "../sync/syncState.ts";
import { copyNotice, NewPublicApiKey } from "./CopyPublicApiKey.tsx";
import { useCopyPublicApiKey } from "./keyHooks.ts";

/**
 * A new key of a linked account: its publicApiKey only once the remote has the key. The value its
 * create answered here is not the one it keeps: the push gives it the remote's publicApiKey, and the
 * local one stops working (electron/sync/README.md, Push). An admin copies a key to put it in an
 * app's configuration, so a value that breaks at the next sync is worse than a short wait: the link
 * is run now (the engine would run it within a second anyway), and the key is shown and copied as
 * it is after the push. When the remote cannot take it now, no value and no Copy are offered, and
 * the dialog says when it will be there.
 */
export function PushedPublicApiKey(props: {
  apiKey: { key: string; name: string };
  accountKey: string;
  linkId: number;
  remote: SyncRemote;
  /** Copies the final value as soon as it is there (the "Create and copy" of a TFA key). */
  copyWhenPushed: boolean;
}) {
  const profile = useProfileScope().id;
  const { key } = props.apiKey;
  const pushed = useQuery({
    queryKey: ["keys.pushedPublicApiKey", props.linkId, key],
    queryFn: async () => {
      // The run answers after its own run (one already under way is waited for).
      await callBridge("sync.run", { id: props.linkId });
      const there = newKeyOnRemote(await callBridge("sync.keys", { id: props.linkId }), key);
      if (!there.onRemote) return there;
      const revealed = await callBridge("keys.revealPublicApiKey", {
        profile,
        accountKey: props.accountKey,
        key,
      });
      return { onRemote: true as const, publicApiKey: revealed.publicApiKey };
    },
    gcTime: 0,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    meta: { errorShownInView: true },
  });
  const copy = useCopyPublicApiKey();
  const where = useActingOn(props.accountKey);
  const copied = useRef(false);
  const final = pushed.data?.onRemote ? pushed.data.publicApiKey : null;
  useEffect(() => {
    if (final === null || !props.copyWhenPushed || copied.current) return;
    copied.current = true;
    copyNotice(copy, props.accountKey, key, props.apiKey.name, where);
  }, [final, props.copyWhenPushed, copy, props.accountKey, key, props.apiKey.name, where]);

  if (final !== null)
    return (
      <Stack gap="xs">
        <NewPublicApiKey apiKey={{ ...props.apiKey, publicApiKey: final }} accountKey={props.accountKey} />
        <Text size="xs" c="dimmed" data-testid="new-key-pushed">
          {props.remote.full} has the key: this publicApiKey works on both services.
        </Text>
      </Stack>
    );
  if (pushed.isPending)
    return (
      <Group gap="xs" wrap="nowrap" aria-busy="true" data-testid="new-key-pushing">
        <Loader size="sm" aria-label="Sending the key to the remote" />
        <Text size="sm">
          Sending the key to {props.remote.full}: its publicApiKey is shown once the remote has it (the remote
          gives it its own value).
        </Text>
      </Group>
    );
  const why = pushed.isError
    ? pushed.error.message
    : pushed.data && !pushed.data.onRemote
      ? (pushed.data.why ?? "the sync did not reach it")
      : "";
  return (
    <Alert color="yellow" variant="light" title="Not on the remote yet" data-testid="new-key-not-pushed">
      <Stack gap="xs">
        <Text size="sm">
          The key is made here, but {props.remote.full} does not have it yet ({why}). Its publicApiKey will
          change when it gets there, so it is not shown: copy it from the Keys table once the key no longer
          shows “Sync pending”.
        </Text>
        <Group>
          <Button
            size="compact-sm"
            variant="light"
            loading={pushed.isFetching}
            onClick={() => pushed.refetch()}
          >
            Try again
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
