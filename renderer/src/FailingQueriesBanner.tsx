import { Alert, Button, Group, Text } from "@mantine/core";
import { type Query, useQueryClient } from "@tanstack/react-query";
import { useContext, useEffect, useState } from "react";
import { BridgeFailure, errorText, isProfileSwitchRefusal } from "./bridgeHooks.ts";
import { useNavigation } from "./navigation.ts";
import { ProfileScopeContext } from "./profileScope.ts";

/**
 * A failure of the profile rather than of one request: its service cannot be reached, or refuses
 * the credentials. The page's banner says these (with what fixes them), never a view as well.
 */
export function isProfileFailure(error: unknown): boolean {
  return (
    error instanceof BridgeFailure &&
    (error.error.messageId === "UNREACHABLE" || error.error.messageId === "UNAUTHORIZED")
  );
}

/**
 * A query whose failure the page shows: one in use by a view (a failed query nothing shows any
 * more, a filter since cleared or a view since left, is not the page's problem) whose error the
 * view does not show on a field itself (field errors, or a query marked `meta.errorShownInView`:
 * `true`, or "unless-profile" for a view that shows every failure but the profile's).
 */
function isShownFailure(query: Query): boolean {
  const shownInView = query.meta?.errorShownInView;
  return (
    query.state.status === "error" &&
    query.getObserversCount() > 0 &&
    !hasFieldErrors(query.state.error) &&
    // A call refused because its profile was left is no failure of the active one (it is asked again).
    !isProfileSwitchRefusal(query.state.error) &&
    shownInView !== true &&
    (shownInView !== "unless-profile" || isProfileFailure(query.state.error))
  );
}

function hasFieldErrors(error: unknown): boolean {
  return error instanceof BridgeFailure && Object.keys(error.error.validationErrors ?? {}).length > 0;
}

/** A banner while a query in use fails, with one Retry for all of them. */
export function FailingQueriesBanner() {
  const queryClient = useQueryClient();
  const scope = useContext(ProfileScopeContext);
  const navigation = useNavigation();
  const [failing, setFailing] = useState<{
    count: number;
    text: string;
    unreachable: boolean;
    refused: boolean;
  }>({ count: 0, text: "", unreachable: false, refused: false });
  useEffect(() => {
    const cache = queryClient.getQueryCache();
    const update = () => {
      const failed = cache.getAll().filter(isShownFailure);
      const first = failed[0]?.state.error;
      setFailing({
        count: failed.length,
        text: first ? errorText(first) : "",
        unreachable: first instanceof BridgeFailure && first.error.messageId === "UNREACHABLE",
        refused: first instanceof BridgeFailure && first.error.messageId === "UNAUTHORIZED",
      });
    };
    update();
    return cache.subscribe(update);
  }, [queryClient]);
  if (failing.count === 0) return null;
  // A remote profile whose credentials are refused is fixed in its edit form: the banner opens it.
  const editable = failing.refused && scope?.kind === "remote" ? scope : null;
  return (
    <Alert
      color="red"
      // Unreachable is said as such: the service was never reached, nothing was refused.
      title={
        failing.unreachable
          ? "The active profile's service is unreachable"
          : editable
            ? `Profile “${editable.name}”: the service refused its username or password`
            : "Something could not be loaded"
      }
      role="alert"
      data-testid="query-error-banner"
      mb="sm"
    >
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">
          {failing.text}
          {failing.count > 1
            ? ` (and ${failing.count - 1} more failing request${failing.count > 2 ? "s" : ""})`
            : ""}
        </Text>
        {editable && (
          <Button
            size="xs"
            color="red"
            style={{ flexShrink: 0 }}
            onClick={() => navigation.open("profiles", { editProfile: editable.id })}
          >
            Edit profile
          </Button>
        )}
        <Button
          size="xs"
          color="red"
          variant="light"
          // A long error text wraps beside it instead of squeezing it to "Re…".
          style={{ flexShrink: 0 }}
          onClick={() => void queryClient.refetchQueries({ predicate: isShownFailure })}
        >
          Retry
        </Button>
      </Group>
    </Alert>
  );
}
