import { ActionIcon, Group, Modal, Select, Tooltip } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useEffect } from "react";
import type { AccountDto } from "../../../../shared/bridge.ts";
import { BridgeFailure, useActiveProfileStatus } from "../../bridgeHooks.ts";
import { OnceOpened } from "../../OnceOpened.tsx";
import { useActiveProfile } from "../profiles/profileHooks.ts";
import { AddSubAccountForm } from "./AddSubAccountForm.tsx";
import { useAccounts } from "./accountHooks.ts";

export interface AccountSwitcherProps {
  accountKey: string;
  onChange(accountKey: string): void;
}

function optionsOf(accounts: AccountDto[]) {
  return accounts.map((account) =>
    account.parentAccountKey === null
      ? { value: "_", label: `${account.username} (own account)` }
      : { value: account.accountKey, label: `${account.username} (sub-account)` },
  );
}

/**
 * Chooses the account of the active profile whose keys are shown ("_": the own account). The field
 * stays compact so that the header fits on one line; the dropdown is as wide as the longest name,
 * and the chosen one is whole in a tooltip. When the active profile's service cannot be reached,
 * the field says so in words (its error, which it is described by).
 */
export function AccountSwitcher({ accountKey, onChange }: AccountSwitcherProps) {
  const accounts = useAccounts();
  const profile = useActiveProfile();
  const status = useActiveProfileStatus();
  const [adding, { open, close }] = useDisclosure(false);
  const data = accounts.data ? optionsOf(accounts.data) : [{ value: "_", label: "Own account" }];
  // Another profile's sub-account is not one of this profile's: back to the own account.
  const known = accounts.data === undefined || data.some((option) => option.value === accountKey);
  useEffect(() => {
    if (!known) onChange("_");
  }, [known, onChange]);
  const unreachable =
    (accounts.error instanceof BridgeFailure && accounts.error.error.messageId === "UNREACHABLE") ||
    status.data?.verdict.reachable === false;
  const chosen = data.find((option) => option.value === accountKey)?.label ?? "";
  const profileName = status.data?.profile.name ?? profile?.name ?? "the active profile";
  const unreachableDetail =
    accounts.error instanceof Error ? accounts.error.message : status.data?.verdict.text;
  return (
    <Group gap="xs" wrap="nowrap" data-testid="account-switcher">
      <Tooltip label={`Account in view: ${chosen}`} openDelay={300} multiline maw={360}>
        <Select
          aria-label="Account"
          data={data}
          value={accountKey}
          onChange={(value) => {
            if (value !== null) onChange(value);
          }}
          allowDeselect={false}
          // In words where it is meant; other failures are in the page's banner, with Retry.
          error={unreachable ? `${profileName} unreachable` : accounts.isError}
          errorProps={{ "data-testid": "account-switcher-unreachable", title: unreachableDetail }}
          // Compact, like the rest of the header, which then fits on one line at 1280 px: as wide as
          // the chosen name within bounds, longer names end in "…" and read whole in the tooltip.
          size="xs"
          data-tooltip
          // The list is made when opened: kept mounted while closed, its positioning ran with the
          // first render and made the page recompute its styles before the first rows were drawn.
          comboboxProps={{
            withinPortal: true,
            width: "max-content",
            position: "bottom-end",
            keepMounted: false,
          }}
          styles={{
            // Whole names: as wide as the longest, never wider than the window (then wrapped).
            dropdown: { maxWidth: "calc(100vw - 16px)" },
            option: { overflowWrap: "anywhere" },
            // The name stays readable; the border and the words below say what is wrong, in a red
            // that keeps 4.5:1 on the header in both schemes (the theme's error red does not in dark).
            input: {
              color: "var(--mantine-color-text)",
              fieldSizing: "content",
              minWidth: 170,
              maxWidth: 280,
              textOverflow: "ellipsis",
            },
            error: { color: "light-dark(var(--mantine-color-red-9), var(--mantine-color-red-3))" },
          }}
        />
      </Tooltip>
      {/* A "+" beside the account: the header keeps to one line from 1024 px. */}
      {profile?.kind === "local" && (
        <Tooltip label="Add sub-account" openDelay={300}>
          <ActionIcon variant="default" size={30} onClick={open} aria-label="Add sub-account">
            <span aria-hidden="true" style={{ fontSize: 18, lineHeight: 1 }}>
              +
            </span>
          </ActionIcon>
        </Tooltip>
      )}
      <OnceOpened opened={adding}>
        <Modal opened={adding} onClose={close} title="Add a sub-account" centered>
          <AddSubAccountForm
            onDone={(account) => {
              close();
              if (account) {
                onChange(account.accountKey);
                notifications.show({
                  color: "green",
                  title: "Sub-account added",
                  message: `${account.username} was added (account ${account.accountKey}) and is now in view.`,
                });
              }
            }}
          />
        </Modal>
      </OnceOpened>
    </Group>
  );
}
