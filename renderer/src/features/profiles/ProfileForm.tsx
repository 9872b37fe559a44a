import { Alert, Button, Group, PasswordInput, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import type { BridgeArgs, ConnectionVerdict, ProfileDto } from "../../../../shared/bridge.ts";
import { BridgeFailure, errorText } from "../../bridgeHooks.ts";
import { useAddProfile, useEditProfile, useTestProfile } from "./profileHooks.ts";
import { VerdictView } from "./VerdictView.tsx";

interface ProfileValues {
  name: string;
  baseUrl: string;
  username: string;
  password: string;
}

/** A verdict that lets a profile be saved without asking: the service answered and took the credentials. */
const confirmed = (verdict: ConnectionVerdict) => verdict.reachable && verdict.credentialsAccepted;

/**
 * Adds a remote profile, or edits one (also the Sync view's "Enter credentials"). Saving tests the
 * connection first (unless only the name changed): a profile the service refuses or that cannot be
 * reached is saved only when the admin says so ("Save anyway"), never silently.
 */
export function ProfileForm({ profile, onDone }: { profile?: ProfileDto; onDone(): void }) {
  const add = useAddProfile();
  const edit = useEditProfile();
  const test = useTestProfile();
  /** The connection could not be confirmed for the values as they are: the admin is asked. */
  const [unconfirmed, setUnconfirmed] = useState<string | null>(null);
  const form = useForm<ProfileValues>({
    // A test's answer is about the connection it was given: another address, user or password drops it.
    onValuesChange: (values, previous) => {
      setUnconfirmed(null);
      if (
        values.baseUrl !== previous.baseUrl ||
        values.username !== previous.username ||
        values.password !== previous.password
      ) {
        test.reset();
      }
    },
    initialValues: {
      name: profile?.name ?? "",
      baseUrl: profile?.baseUrl ?? "",
      username: profile?.username ?? "",
      password: "",
    },
    validate: {
      name: (value) => (value.trim() === "" ? "must not be empty" : null),
      baseUrl: (value) =>
        /^https?:\/\/\S+$/.test(value.trim()) ? null : "must be an http:// or https:// URL",
      username: (value) => (value.trim() === "" ? "must not be empty" : null),
      password: (value) => (profile === undefined && value === "" ? "must not be empty" : null),
    },
  });
  const save = profile ? edit : add;
  const showFieldErrors = (error: unknown) => {
    if (error instanceof BridgeFailure && error.error.validationErrors) {
      const errors: Record<string, string> = {};
      for (const [field, messages] of Object.entries(error.error.validationErrors)) {
        errors[field] = messages.join("; ");
      }
      form.setErrors(errors);
    }
  };
  const testArgs = (values: ProfileValues): BridgeArgs<"profiles.test"> =>
    profile && values.password === ""
      ? { id: profile.id }
      : { baseUrl: values.baseUrl.trim(), username: values.username.trim(), password: values.password };
  const saveValues = (values: ProfileValues) => {
    const common = {
      name: values.name.trim(),
      baseUrl: values.baseUrl.trim(),
      username: values.username.trim(),
    };
    if (profile) {
      edit.mutate(
        { id: profile.id, ...common, ...(values.password !== "" && { password: values.password }) },
        { onSuccess: onDone, onError: showFieldErrors },
      );
    } else {
      add.mutate({ ...common, password: values.password }, { onSuccess: onDone, onError: showFieldErrors });
    }
  };
  const submit = form.onSubmit(async (values) => {
    const connectionKept =
      profile !== undefined &&
      values.password === "" &&
      values.baseUrl.trim() === profile.baseUrl &&
      values.username.trim() === profile.username;
    if (connectionKept) {
      saveValues(values);
      return;
    }
    try {
      const verdict = await test.mutateAsync(testArgs(values));
      if (confirmed(verdict)) saveValues(values);
      else setUnconfirmed(verdict.text);
    } catch (error) {
      showFieldErrors(error);
      if (!(error instanceof BridgeFailure && error.error.validationErrors)) setUnconfirmed(errorText(error));
    }
  });
  const runTest = () => {
    const values = form.getValues();
    const args = testArgs(values);
    if (!("id" in args) && form.validate().hasErrors) return;
    test.mutate(args, { onError: showFieldErrors });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps("name")} />
        <TextInput
          label="Base URL"
          placeholder="https://keys.example.com"
          required
          {...form.getInputProps("baseUrl")}
        />
        <TextInput label="Username" required autoComplete="off" {...form.getInputProps("username")} />
        <PasswordInput
          label="Password"
          required={profile === undefined}
          autoComplete="new-password"
          description={profile ? "Leave empty to keep the saved password" : undefined}
          {...form.getInputProps("password")}
        />
        {test.data && <VerdictView verdict={test.data} />}
        {((test.isError && unconfirmed === null) ||
          (save.isError && !(save.error instanceof BridgeFailure && save.error.error.validationErrors))) && (
          <Alert color="red.9" role="alert">
            {errorText(test.error ?? save.error)}
          </Alert>
        )}
        {unconfirmed !== null && (
          <Alert color="orange" role="alert" title="Not saved yet" data-testid="profile-unconfirmed">
            <Stack gap="xs">
              <span>
                Keydesk could not confirm this profile: {unconfirmed} Save it anyway, or correct it and try
                again.
              </span>
              <Group gap="xs">
                <Button
                  size="compact-sm"
                  color="orange"
                  loading={save.isPending}
                  onClick={() => saveValues(form.getValues())}
                >
                  Save anyway
                </Button>
                <Button size="compact-sm" variant="default" onClick={() => setUnconfirmed(null)}>
                  Keep editing
                </Button>
              </Group>
            </Stack>
          </Alert>
        )}
        <Group justify="space-between" className="kd-sticky-footer">
          <Button variant="default" onClick={runTest} loading={test.isPending}>
            Test connection
          </Button>
          <Group>
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending || test.isPending} disabled={unconfirmed !== null}>
              {profile ? "Save" : "Add profile"}
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}
