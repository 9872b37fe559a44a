import { Button, Group, Modal, PasswordInput, Select, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { useEffect } from "react";
import type { AccountDto } from "../../../../shared/bridge.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { useActiveProfile } from "../profiles/profileHooks.ts";
import { useAccounts, useAddSubAccount } from "./accountHooks.ts";

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

/** Chooses the account of the active profile whose keys are shown ("_": the own account). */
export function AccountSwitcher({ accountKey, onChange }: AccountSwitcherProps) {
  const accounts = useAccounts();
  const profile = useActiveProfile();
  const [adding, { open, close }] = useDisclosure(false);
  const data = accounts.data ? optionsOf(accounts.data) : [{ value: "_", label: "Own account" }];
  // Another profile's sub-account is not one of this profile's: back to the own account.
  const known = accounts.data === undefined || data.some((option) => option.value === accountKey);
  useEffect(() => {
    if (!known) onChange("_");
  }, [known, onChange]);
  return (
    <Group gap="xs" wrap="nowrap" data-testid="account-switcher">
      <Select
        aria-label="Account"
        data={data}
        value={accountKey}
        onChange={(value) => {
          if (value !== null) onChange(value);
        }}
        allowDeselect={false}
        error={accounts.isError}
        title={accounts.isError ? accounts.error.message : undefined}
        // Compact, like the rest of the header, which then fits on one line at 1280 px.
        size="xs"
        w={170}
        comboboxProps={{ withinPortal: true }}
      />
      {profile?.kind === "local" && (
        <Button variant="default" size="xs" onClick={open}>
          Add sub-account
        </Button>
      )}
      <Modal opened={adding} onClose={close} title="Add a sub-account" centered>
        <AddSubAccountForm
          onDone={(account) => {
            close();
            if (account) onChange(account.accountKey);
          }}
        />
      </Modal>
    </Group>
  );
}

function AddSubAccountForm({ onDone }: { onDone(account?: AccountDto): void }) {
  const add = useAddSubAccount();
  const form = useForm({ initialValues: { username: "", password: "" } });
  const submit = form.onSubmit((values) => {
    add.mutate(values, {
      onSuccess: (account) => onDone(account),
      onError: (error) => {
        if (error instanceof BridgeFailure && error.error.validationErrors) {
          const errors: Record<string, string> = {};
          for (const [field, messages] of Object.entries(error.error.validationErrors)) {
            errors[field] = messages.join("; ");
          }
          form.setErrors(errors);
        }
      },
    });
  });
  const fieldErrors = add.error instanceof BridgeFailure && add.error.error.validationErrors;
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text size="sm">
          The new account belongs to this Local service's own account. Its keys are managed from here; it can
          also sign in to the service with these credentials.
        </Text>
        <TextInput label="Username" required data-autofocus {...form.getInputProps("username")} />
        <PasswordInput label="Password" required {...form.getInputProps("password")} />
        {add.isError && !fieldErrors && (
          <Text c="red.9" role="alert" size="sm">
            {add.error.message}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => onDone()}>
            Cancel
          </Button>
          <Button type="submit" loading={add.isPending}>
            Add sub-account
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
