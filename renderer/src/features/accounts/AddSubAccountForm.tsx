import { Button, Group, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { AccountDto } from "../../../../shared/bridge.ts";
import {
  CONSOLE_PASSWORD_RULE,
  MIN_CONSOLE_PASSWORD_LENGTH,
  USERNAME_PATTERN,
  USERNAME_RULE,
} from "../../../../shared/credentialRules.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

import { useAddSubAccount } from "./accountHooks.ts";
import { StrengthHint } from "./StrengthHint.tsx";

interface Values {
  username: string;
  password: string;
  confirmation: string;
}

/** Username, password twice (with a strength hint); answers the account once the service added it. */
export function AddSubAccountForm({ onDone }: { onDone(account?: AccountDto): void }) {
  const add = useAddSubAccount();
  const form = useForm<Values>({
    initialValues: { username: "", password: "", confirmation: "" },
    // Nothing is sent that the form marks invalid: the rules the bridge checks, in its words.
    validate: {
      username: (value) => (USERNAME_PATTERN.test(value) ? null : capitalized(USERNAME_RULE)),
      password: (value) =>
        [...value].length >= MIN_CONSOLE_PASSWORD_LENGTH
          ? null
          : `The password must be ${CONSOLE_PASSWORD_RULE}.`,
      confirmation: (value, values) =>
        value === values.password ? null : "The passwords do not match: type the same password twice.",
    },
  });
  const submit = form.onSubmit(({ username, password }) => {
    add.mutate(
      { username, password },
      {
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
      },
    );
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
        <StrengthHint password={form.values.password} username={form.values.username} />
        <PasswordInput label="Confirm password" required {...form.getInputProps("confirmation")} />
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
