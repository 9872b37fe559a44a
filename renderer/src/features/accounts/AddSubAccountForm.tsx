import { Button, Group, PasswordInput, Progress, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { AccountDto } from "../../../../shared/bridge.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { useAddSubAccount } from "./accountHooks.ts";
import { passwordStrength, type StrengthLevel } from "./passwordStrength.ts";

const METER_COLOR: Record<StrengthLevel, string> = {
  "too-short": "red",
  weak: "red",
  fair: "yellow",
  good: "teal",
  strong: "green",
};

interface Values {
  username: string;
  password: string;
  confirmation: string;
}

/** The password's strength as a meter and a sentence, announced as it changes. */
export function StrengthHint({ password, username }: { password: string; username: string }) {
  if (password === "") return null;
  const strength = passwordStrength(password, username);
  return (
    <Stack gap={4}>
      <Progress
        value={(Math.max(strength.score, 0.5) / 4) * 100}
        color={METER_COLOR[strength.level]}
        size="sm"
        aria-hidden
      />
      <Text size="sm" aria-live="polite" data-testid="password-strength">
        {strength.hint}
      </Text>
    </Stack>
  );
}

/** Username, password twice (with a strength hint); answers the account once the service added it. */
export function AddSubAccountForm({ onDone }: { onDone(account?: AccountDto): void }) {
  const add = useAddSubAccount();
  const form = useForm<Values>({
    initialValues: { username: "", password: "", confirmation: "" },
    validate: {
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
