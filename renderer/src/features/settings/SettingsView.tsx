import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  Radio,
  Stack,
  Text,
  Title,
  useMantineColorScheme,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { bridgeArgumentSchemas, THEMES, type Theme } from "../../../../shared/bridge.ts";
import { BridgeFailure, errorText } from "../../bridgeHooks.ts";
import { BackupSettings } from "./BackupSettings.tsx";
import { CredentialStorage } from "./CredentialStorage.tsx";
import { NotificationSettings } from "./NotificationSettings.tsx";
import { useSettings, useUpdateSettings } from "./settingsHooks.ts";

// The bounds come from the bridge's own schema, so the form cannot drift from what main accepts.
const clearSecondsSchema = bridgeArgumentSchemas["settings.update"].shape.clipboardClearSeconds.unwrap();
if (clearSecondsSchema.minValue === null || clearSecondsSchema.maxValue === null) {
  throw new Error("settings.update: clipboardClearSeconds has no bounds");
}
export const MIN_CLEAR_SECONDS = clearSecondsSchema.minValue;
export const MAX_CLEAR_SECONDS = clearSecondsSchema.maxValue;

/** The field's problem in words, or null; NumberInput gives "" for an empty field. */
export function clearSecondsError(value: number | string): string | null {
  const range = `from ${MIN_CLEAR_SECONDS} to ${MAX_CLEAR_SECONDS}`;
  if (value === "") return `Enter a number of seconds ${range}.`;
  const seconds = Number(value);
  if (!Number.isInteger(seconds)) return `Enter a whole number of seconds ${range}.`;
  if (seconds < MIN_CLEAR_SECONDS) return `At least ${MIN_CLEAR_SECONDS} seconds.`;
  if (seconds > MAX_CLEAR_SECONDS) return `At most ${MAX_CLEAR_SECONDS} seconds (one hour).`;
  return null;
}

interface ClipboardValues {
  seconds: number | string;
}

/** The clipboard clear delay: the current value in the field, saved on submit. */
function ClipboardForm({ current }: { current: number }) {
  const update = useUpdateSettings();
  // The confirmation stays until the field changes, so it never vouches for an unsaved value.
  const [saved, setSaved] = useState<number | null>(null);
  const form = useForm<ClipboardValues>({
    initialValues: { seconds: current },
    validate: { seconds: clearSecondsError },
    validateInputOnBlur: true,
    onValuesChange: () => setSaved(null),
  });
  const submit = form.onSubmit(({ seconds }) => {
    update.mutate(
      { clipboardClearSeconds: Number(seconds) },
      {
        onSuccess: (settings) => setSaved(settings.clipboardClearSeconds),
        onError: (error) => {
          const fieldErrors = error instanceof BridgeFailure && error.error.validationErrors;
          const messages = fieldErrors ? fieldErrors.clipboardClearSeconds : undefined;
          if (messages) form.setFieldError("seconds", messages.join("; "));
        },
      },
    );
  });
  const fieldRefused = update.error instanceof BridgeFailure && update.error.error.validationErrors;
  return (
    <form onSubmit={submit} noValidate aria-labelledby="clipboard-title">
      <Stack gap="sm">
        <NumberInput
          label="Clear the clipboard after (seconds)"
          description={`After you copy a publicApiKey, Keydesk clears the clipboard this many seconds later if it still holds the key. From ${MIN_CLEAR_SECONDS} to ${MAX_CLEAR_SECONDS}.`}
          maw={420}
          min={MIN_CLEAR_SECONDS}
          max={MAX_CLEAR_SECONDS}
          // Out-of-range input stays as typed and gets an error, instead of silently becoming 5 or 3600.
          clampBehavior="none"
          allowDecimal={false}
          allowNegative={false}
          required
          {...form.getInputProps("seconds")}
        />
        <Group gap="md">
          <Button type="submit" loading={update.isPending}>
            Save
          </Button>
          {saved !== null && (
            <Text size="sm" role="status" data-testid="settings-saved">
              Saved: a copied publicApiKey is cleared after {saved} s.
            </Text>
          )}
        </Group>
        {update.isError && !fieldRefused && (
          <Alert color="red.9" role="alert" title="Not saved">
            {errorText(update.error)}
          </Alert>
        )}
      </Stack>
    </form>
  );
}

const THEME_LABELS: Record<Theme, string> = { light: "Light", dark: "Dark", auto: "Follow the system" };

/** The colour scheme: applied at once, saved for the next start (and the other windows). */
function ThemeChoice({ current }: { current: Theme }) {
  const update = useUpdateSettings();
  const { setColorScheme } = useMantineColorScheme();
  return (
    <Stack gap="xs">
      <Radio.Group
        label="Theme"
        value={update.isPending && update.variables.theme ? update.variables.theme : current}
        onChange={(value) => {
          const theme = value as Theme;
          setColorScheme(theme);
          update.mutate({ theme });
        }}
      >
        <Group gap="lg" mt={6}>
          {THEMES.map((theme) => (
            <Radio key={theme} value={theme} label={THEME_LABELS[theme]} />
          ))}
        </Group>
      </Radio.Group>
      {update.isError && (
        <Alert color="red" role="alert" title="Theme not saved">
          {errorText(update.error)}
        </Alert>
      )}
    </Stack>
  );
}

/**
 * The admin's settings: the clipboard clear delay, the theme, expiry notifications, backups of the Local data (BackupSettings), and (read-only) where credentials are
 * kept. The settings file holds more (the profiles, edited in the Profiles view, and the embedded
 * service's remembered port, which the service finds itself when the port is taken); nothing else a
 * desktop user would change lives only in a file or the environment today.
 */
export function SettingsView() {
  const settings = useSettings();
  return (
    <Stack component="section" aria-labelledby="settings-title" data-testid="settings-view" maw={900}>
      <Title order={2} id="settings-title">
        Settings
      </Title>
      <Card withBorder component="section" aria-labelledby="clipboard-title" data-testid="clipboard-settings">
        <Stack gap="sm">
          <Title order={3} id="clipboard-title">
            Clipboard
          </Title>
          {settings.isPending && <Text size="sm">Loading the settings…</Text>}
          {/* A failed load is in the banner above the view, with Retry. */}
          {settings.data && <ClipboardForm current={settings.data.clipboardClearSeconds} />}
        </Stack>
      </Card>
      <Card withBorder component="section" aria-labelledby="appearance-title" data-testid="theme-settings">
        <Stack gap="sm">
          <Title order={3} id="appearance-title">
            Appearance
          </Title>
          {settings.data && <ThemeChoice current={settings.data.theme} />}
        </Stack>
      </Card>
      <NotificationSettings />
      <BackupSettings />
      <CredentialStorage />
    </Stack>
  );
}
