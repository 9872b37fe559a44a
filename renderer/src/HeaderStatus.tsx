import { Badge, Button, Group, Text, Tooltip, VisuallyHidden } from "@mantine/core";
import type { ActiveProfileStatusDto, ServiceStatusDto } from "../../shared/bridge.ts";
import { parseApiDateTime } from "../../shared/datetime.ts";
import {
  BridgeFailure,
  useActiveProfileStatus,
  useRecheckWhenUnreachable,
  useServiceStatus,
} from "./bridgeHooks.ts";
import { portNote as embeddedPortNote } from "./features/profiles/portNote.ts";
import { formatLocal } from "./time.ts";

type ActiveState = "checking" | "unknown" | "reachable" | "credentials-refused" | "unreachable";

const STATE_BADGES: Record<ActiveState, { label: string; color: string }> = {
  checking: { label: "Checking…", color: "gray" },
  unknown: { label: "Status unknown", color: "red" },
  reachable: { label: "Reachable", color: "green" },
  "credentials-refused": { label: "Credentials refused", color: "orange" },
  unreachable: { label: "Unreachable", color: "red" },
};

function stateOf(status: ActiveProfileStatusDto): ActiveState {
  const { reachable, credentialsAccepted } = status.verdict;
  if (!reachable) return "unreachable";
  return credentialsAccepted ? "reachable" : "credentials-refused";
}

/**
 * What the header shows of it: the address, which is what tells two services apart (the switcher
 * beside it names the profile). The whole description is its tooltip and what a screen reader reads.
 */
function shortDescribe(status: ActiveProfileStatusDto): string {
  const { profile, verdict } = status;
  if (profile.kind === "remote") return profile.baseUrl;
  return `${verdict.reachable ? "running at" : "not answering at"} ${profile.baseUrl}`;
}

function describe(status: ActiveProfileStatusDto): string {
  const { profile, verdict } = status;
  if (profile.kind === "remote") return `Profile “${profile.name}” (remote): ${profile.baseUrl}`;
  return `Profile “${profile.name}” (embedded service): ${verdict.reachable ? "running at" : "not answering at"} ${profile.baseUrl}`;
}

/** Why the embedded service is not on its usual port (the Profiles view says it too). */
function portNote(status: ActiveProfileStatusDto, embedded: ServiceStatusDto | undefined): string {
  const note = status.profile.kind === "local" && embedded ? embeddedPortNote(embedded) : "";
  return note === "" ? "" : ` ${note.charAt(0).toUpperCase()}${note.slice(1)}.`;
}

function checkedAtText(status: ActiveProfileStatusDto): string {
  const time = parseApiDateTime(status.checkedAt);
  return time === null ? "" : ` Checked at ${formatLocal(time)}.`;
}

/**
 * Where credentials are kept, in a few words: without a keychain only the remote passwords are
 * lost on restart (the Local service keeps its password and data key in files); Settings says more.
 */
function keychainNote(status: ServiceStatusDto): string {
  return status.keychain === "os"
    ? "Credentials are kept in the OS keychain."
    : "Remote passwords for this session only; the Local password and data key in files. Details in Settings.";
}

/**
 * The header's status: the ACTIVE profile's service (its address, and whether it answers and
 * accepts the credentials), a Check now button, and where credentials are kept. A remote profile
 * is checked every ACTIVE_STATUS_POLL_MS, and at once when a call finds it unreachable; the
 * embedded service's own status is in the Profiles view.
 */
export function HeaderStatus() {
  useRecheckWhenUnreachable();
  const embedded = useServiceStatus();
  const active = useActiveProfileStatus();
  // Just after a switch the last check is of the previous profile: say "checking" until the new one's.
  const stale =
    active.data !== undefined &&
    embedded.data !== undefined &&
    embedded.data.activeProfileId !== active.data.profile.id;
  const state: ActiveState =
    active.isPending || stale ? "checking" : active.isError ? "unknown" : stateOf(active.data);
  const badge = STATE_BADGES[state];
  const description =
    state === "checking" || !active.data ? "Checking the active profile's service…" : describe(active.data);
  const shown = state === "checking" || !active.data ? "Checking…" : shortDescribe(active.data);
  const why =
    state === "unknown"
      ? active.error instanceof BridgeFailure
        ? active.error.error.text
        : String(active.error)
      : active.data && !stale
        ? `${active.data.verdict.text}${portNote(active.data, embedded.data)}${checkedAtText(active.data)}`
        : "";
  const keychain = embedded.data;

  return (
    // One line. Its basis is its whole width (auto), so the header wraps this group to a line of its
    // own rather than cut the address when the switchers leave too little room (on views without the
    // account switcher too); only on that own line, if still too narrow, does the description shrink
    // ("…", all of it on hover) while the rest keeps its width.
    <Group gap="xs" wrap="nowrap" style={{ flex: "1 1 auto" }} miw={0}>
      <Group
        gap="xs"
        wrap="nowrap"
        miw={0}
        style={{ flex: "1 1 0" }}
        data-testid="service-status"
        role="status"
        aria-label="Service of the active profile"
      >
        <Tooltip label={why || description} multiline w={320} disabled={!why}>
          <Badge
            size="sm"
            // The description shrinks, never the state.
            style={{ flexShrink: 0 }}
            color={badge.color}
            variant="dot"
            data-testid="active-service-state"
            data-state={state}
            tabIndex={0}
          >
            {badge.label}
          </Badge>
        </Tooltip>
        {/* A long remote address ends in "…" (all of it on hover) rather than push the header to more lines. */}
        <Text
          size="xs"
          truncate="end"
          miw={0}
          title={description}
          aria-hidden="true"
          data-testid="active-service-text"
        >
          {shown}
        </Text>
        <VisuallyHidden>{description}</VisuallyHidden>
        {state !== "reachable" && why && <VisuallyHidden>{why}</VisuallyHidden>}
      </Group>
      <Button
        size="compact-xs"
        variant="subtle"
        style={{ flexShrink: 0 }}
        loading={active.isFetching}
        onClick={() => void active.refetch()}
        aria-label="Check the active profile's service now"
      >
        Check now
      </Button>
      {keychain && (
        <>
          <Tooltip label={keychainNote(keychain)} multiline w={280}>
            <Badge
              size="sm"
              style={{ flexShrink: 0 }}
              color={keychain.keychain === "os" ? "gray" : "yellow"}
              variant="dot"
              tabIndex={0}
            >
              {keychain.keychain === "os" ? "OS keychain" : "No OS keychain"}
            </Badge>
          </Tooltip>
          {keychain.keychain !== "os" && (
            <VisuallyHidden>
              {keychainNote(keychain)} {keychain.keychainUnavailableReason}
            </VisuallyHidden>
          )}
        </>
      )}
    </Group>
  );
}
