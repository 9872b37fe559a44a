import { Alert, Badge, Button, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { Fragment, useRef, useState } from "react";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import type { CapturedPinDto } from "../../../../shared/tfa.ts";
import { BridgeFailure, errorText } from "../../bridgeHooks.ts";
import { isProfileFailure } from "../../FailingQueriesBanner.tsx";
import { useProfileScope } from "../../profileScope.ts";
import { formatLocal, localDayAndTime, zoneName } from "../../time.ts";
import { useNowUntil } from "../../useNow.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { useAccounts } from "../accounts/accountHooks.ts";
import { accountLabel } from "../accounts/actingOn.ts";
import { copyText } from "../profiles/CopyableField.tsx";
import { useActiveProfile } from "../profiles/profileHooks.ts";
import { usePinEvents, usePins } from "./pinHooks.ts";
import { nextPinExpiry, pinState } from "./pinState.ts";

/** The service's words for a filter it refused, to show on that field instead of a banner. */
function fieldError(error: unknown, field: "to" | "applicationId"): string | undefined {
  if (!(error instanceof BridgeFailure)) return undefined;
  return error.error.validationErrors?.[field]?.join("; ");
}

/**
 * The PINs captured by the active profile's 2FA simulator, newest first, live for the Local
 * profile. The inbox holds every account of the profile (its own and its sub-accounts: the
 * service lists what the profile's credentials manage), so the header's account switcher is
 * hidden on this view rather than seeming to narrow it.
 */
export function PinInboxView() {
  const [to, setTo] = useState("");
  const [applicationId, setApplicationId] = useState("");
  // Each text debounced on its own: an object literal is new at every render, and debouncing it
  // re-rendered the view every 250 ms for ever.
  const [debouncedTo] = useDebouncedValue(to, 250);
  const [debouncedApplicationId] = useDebouncedValue(applicationId, 250);
  const pins = usePins({ to: debouncedTo, applicationId: debouncedApplicationId });
  // The rows' states move on when a listed PIN expires: "Expired" shows without a reload.
  const now = useNowUntil((at) => (pins.data ? nextPinExpiry(pins.data, at) : null));
  const profile = useActiveProfile();
  const accounts = useAccounts();
  usePinEvents(useProfileScope());
  const toError = fieldError(pins.error, "to");
  const applicationError = fieldError(pins.error, "applicationId");
  // A list kept from an earlier answer while the service fails now: shown as of that answer.
  const answeredAt =
    pins.isError && pins.data !== undefined ? new Date(pins.dataUpdatedAt).toLocaleTimeString() : null;

  return (
    <Stack component="section" aria-labelledby="pins-title" data-testid="pin-inbox">
      <Title order={2} id="pins-title">
        PIN inbox
      </Title>
      <Text size="sm" c="dimmed">
        Messages the 2FA simulator would have sent, for every account of this profile: an app under test asks
        for a PIN, you read it here.
        {profile?.kind === "remote" && " New PINs of a remote profile appear when the list is refreshed."}
      </Text>
      <Group align="flex-start">
        <TextInput
          label="To (phone number)"
          description="All or part of a number"
          value={to}
          onChange={(event) => setTo(event.currentTarget.value)}
          maxLength={20}
          error={toError}
          data-testid="pin-filter-to"
        />
        <TextInput
          label="Application ID"
          description="As the app under test sends it"
          value={applicationId}
          onChange={(event) => setApplicationId(event.currentTarget.value)}
          maxLength={64}
          error={applicationError}
          data-testid="pin-filter-application"
        />
        <Button variant="default" mt={44} onClick={() => void pins.refetch()} loading={pins.isFetching}>
          Refresh
        </Button>
      </Group>
      {pins.isPending && <Text>Loading PINs…</Text>}
      {pins.isError &&
        !toError &&
        !applicationError &&
        // The page's banner says a profile's failure, with what fixes it (Retry, Edit profile): not twice.
        (isProfileFailure(pins.error) ? (
          pins.data === undefined && (
            // Why there is no list, not "no PINs": there may be some the service cannot tell now.
            <Text size="sm" c="dimmed" data-testid="pin-inbox-not-loaded">
              {notLoadedText(pins.error, profile?.name ?? "the active profile")}
            </Text>
          )
        ) : (
          <Alert color="red" role="alert">
            {errorText(pins.error)}
          </Alert>
        ))}
      {answeredAt !== null && (
        <Alert color="yellow" variant="light" role="status" data-testid="pin-inbox-stale">
          This list is as {profile?.name ?? "the profile"} answered at {answeredAt}; it does not answer now,
          so PINs sent since and their states may be missing.
        </Alert>
      )}
      {pins.data &&
        (pins.data.length === 0 ? (
          <Text data-testid="pin-inbox-empty">
            {answeredAt !== null
              ? `No PINs ${to || applicationId ? "matched these filters" : "had been captured"} as of ${answeredAt}.`
              : `No PINs captured${to || applicationId ? " for these filters" : " yet"}.`}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={600} type="native">
            <Table striped data-testid="pin-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Sent ({zoneName(now)})</Table.Th>
                  <Table.Th>To</Table.Th>
                  <Table.Th>PIN</Table.Th>
                  <Table.Th>Application and message</Table.Th>
                  <Table.Th>State</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {pins.data.map((pin) => (
                  <PinRow
                    key={pin.pinId}
                    pin={pin}
                    now={now}
                    account={
                      pin.accountKey === undefined ? undefined : accountLabel(pin.accountKey, accounts.data)
                    }
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        ))}
    </Stack>
  );
}

/** Why a profile's PINs could not be listed (its failure, isProfileFailure), in the inbox's words. */
function notLoadedText(error: unknown, profileName: string): string {
  const refused = error instanceof BridgeFailure && error.error.messageId === "UNAUTHORIZED";
  return refused
    ? `The service of ${profileName} refused its credentials: its PINs cannot be listed until it accepts them.`
    : `The service of ${profileName} is unreachable: its PINs cannot be listed until it answers.`;
}

function SentAt({ at, now }: { at: string; now: number }) {
  const time = parseApiDateTime(at);
  if (time === null) return <span>{at}</span>;
  const { day, time: timeOfDay } = localDayAndTime(time, now);
  return (
    <time dateTime={new Date(time).toISOString()} title={formatLocal(time)} data-testid="pin-sent-at">
      <Text size="sm" span display="block">
        {day}
      </Text>
      <Text size="sm" span display="block">
        {timeOfDay}
      </Text>
    </time>
  );
}

function PinRow({ pin, now, account }: { pin: CapturedPinDto; now: number; account: string | undefined }) {
  const code = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<"copied" | "selected" | null>(null);
  const copy = async () => {
    if (await copyText(pin.pin)) {
      setCopied("copied");
    } else if (code.current) {
      const range = document.createRange();
      range.selectNodeContents(code.current);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      setCopied("selected");
    }
    setTimeout(() => setCopied(null), 2000);
  };
  const state = pinState(pin, now);
  return (
    <Table.Tr data-testid="pin-row" data-pin-id={pin.pinId}>
      <Table.Td style={{ whiteSpace: "nowrap" }}>
        <SentAt at={pin.sentAt} now={now} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          {pin.to}
        </Text>
        <Text size="xs" c="dimmed">
          {pin.channel === "VOICE" ? "Voice call" : "SMS"}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <code ref={code} data-testid="pin-value">
            {pin.pin}
          </code>
          <Button
            size="compact-xs"
            variant="default"
            onClick={copy}
            aria-label={`Copy PIN sent to ${pin.to}`}
          >
            {copied === "copied" ? "Copied" : copied === "selected" ? "Press Ctrl+C" : "Copy"}
          </Button>
        </Group>
      </Table.Td>
      {/* The message under its application, wrapped whole (never clamped: checking a template's
          text is why one reads it), so that at 800 px it is not a column scrolled out of the window. */}
      <Table.Td miw={160}>
        <Text size="sm" data-testid="pin-application" title={`Application ID ${pin.applicationId}`}>
          {pin.applicationName ?? <code>{pin.applicationId}</code>}
        </Text>
        {/* The inbox holds every account of the profile: whose app asked for this message. */}
        {account !== undefined && (
          <Text size="xs" c="dimmed" data-testid="pin-account">
            Account {account}
          </Text>
        )}
        <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }} data-testid="pin-message">
          {pin.text}
        </Text>
      </Table.Td>
      <Table.Td data-testid="pin-state">
        {/* The whole state, never "5 ATTEMP…": the badge keeps its width and its words' case. */}
        <Badge color={state.color} variant="dot" tt="none" styles={WHOLE_BADGE}>
          {state.label}
        </Badge>
        {state.detail && <PinStateDetail {...state.detail} />}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * "NC_DESTINATION_NOT_REACHABLE, MESSAGE_NOT_SENT · 10 attempts left": each status and the PIN's
 * state kept whole (a line of a narrow column breaks between them, never inside a status word,
 * as it did when any character could end a line).
 */
function PinStateDetail({ statuses, state }: { statuses: readonly string[]; state: string }) {
  return (
    <Text size="xs" c="dimmed" mt={2} data-testid="pin-state-detail">
      {statuses.map((status, index) => (
        <Fragment key={status}>
          <span style={{ whiteSpace: "nowrap" }}>
            {status}
            {index < statuses.length - 1 ? "," : ""}
          </span>{" "}
        </Fragment>
      ))}
      <span style={{ whiteSpace: "nowrap" }}>· {state}</span>
    </Text>
  );
}
