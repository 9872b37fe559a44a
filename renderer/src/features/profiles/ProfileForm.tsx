import { Alert, Button, Group, PasswordInput, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { ProfileDto } from "../../../../shared/bridge.ts";
import { BridgeFailure, errorText } from "../../bridgeHooks.ts";
import { useAddProfile, useEditProfile, useTestProfile } from "./profileHooks.ts";
import { VerdictView } from "./VerdictView.tsx";

interface ProfileValues {
  name: string;
  baseUrl: string;
  username: string;
  password: string;
}

/** Adds a remote profile, or edits one (also the Sync view's "Enter credentials"). */
export function ProfileForm({ profile, onDone }: { profile?: ProfileDto; onDone(): void }) {
  const add = useAddProfile();
  const edit = useEditProfile();
  const test = useTestProfile();
  const form = useForm<ProfileValues>({
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
  const submit = form.onSubmit((values) => {
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
  });
  const runTest = () => {
    const values = form.getValues();
    if (profile && values.password === "") {
      test.mutate({ id: profile.id });
      return;
    }
    if (form.validate().hasErrors) return;
    test.mutate(
      { baseUrl: values.baseUrl.trim(), username: values.username.trim(), password: values.password },
      { onError: showFieldErrors },
    );
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
        {(test.isError ||
          (save.isError && !(save.error instanceof BridgeFailure && save.error.error.validationErrors))) && (
          <Alert color="red.9" role="alert">
            {errorText(test.error ?? save.error)}
          </Alert>
        )}
        <Group justify="space-between">
          <Button variant="default" onClick={runTest} loading={test.isPending}>
            Test connection
          </Button>
          <Group>
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {profile ? "Save" : "Add profile"}
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}
