import { Checkbox, NumberInput, SimpleGrid, Stack, Switch, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { ApplicationDto } from "../../../../shared/tfa.ts";
import { MAX_PIN_ATTEMPTS } from "../../../../shared/tfaSchemas.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { ActingOn } from "../accounts/ActingOn.tsx";
import { GuardedModal } from "./GuardedModal.tsx";
import { SaveFooter } from "./SaveFooter.tsx";
import {
  type ApplicationFormValues,
  applicationFormErrors,
  applicationFormValues,
  applicationRequestOf,
  formErrorsOf,
} from "./tfaForms.ts";
import { useCreateApplication, useUpdateApplication } from "./tfaHooks.ts";

export interface ApplicationDialogProps {
  accountKey: string;
  /** The application to edit; none: a new one. */
  application?: ApplicationDto;
  onClose(saved?: ApplicationDto): void;
}

/** The form of an application, checked with the service's schema. */
function useApplicationForm(application: ApplicationDto | undefined) {
  return useForm<ApplicationFormValues>({
    initialValues: applicationFormValues(application),
    validate: (values) => applicationFormErrors(values, application ? "update" : "create"),
    validateInputOnBlur: true,
  });
}

/** Creates an application or edits one's name, state and configuration. */
export function ApplicationDialog({ accountKey, application, onClose }: ApplicationDialogProps) {
  const form = useApplicationForm(application);
  return (
    <GuardedModal
      title={application ? `Edit ${application.name}` : "New 2FA application"}
      dirty={form.isDirty()}
      onClose={() => onClose()}
    >
      <Stack gap="sm">
        <ActingOn accountKey={accountKey} />
        <ApplicationForm accountKey={accountKey} application={application} onClose={onClose} form={form} />
      </Stack>
    </GuardedModal>
  );
}

function ApplicationForm({
  accountKey,
  application,
  onClose,
  form,
}: ApplicationDialogProps & { form: ReturnType<typeof useApplicationForm> }) {
  const create = useCreateApplication();
  const update = useUpdateApplication();
  const saving = application ? update : create;
  const submit = form.onSubmit((values) => {
    const request = applicationRequestOf(values);
    const callbacks = {
      onSuccess: (saved: ApplicationDto) => onClose(saved),
      onError: (error: Error) => {
        if (error instanceof BridgeFailure && error.error.validationErrors) {
          form.setErrors(formErrorsOf(error.error.validationErrors));
        }
      },
    };
    if (application) {
      update.mutate({ accountKey, applicationId: application.applicationId, request }, callbacks);
    } else {
      create.mutate({ accountKey, request }, callbacks);
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput label="Name" required data-autofocus {...form.getInputProps("name")} />
        <Switch
          label="Enabled"
          description="A disabled application refuses to send PINs; verifying PINs already sent keeps working."
          {...form.getInputProps("enabled", { type: "checkbox" })}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <NumberInput
            label="PIN attempts"
            description={`Wrong PINs allowed before a PIN is used up (1 to ${MAX_PIN_ATTEMPTS}).`}
            min={1}
            max={MAX_PIN_ATTEMPTS}
            clampBehavior="none"
            allowDecimal={false}
            allowNegative={false}
            required
            {...form.getInputProps("pinAttempts")}
          />
          <TextInput
            label="PIN time to live"
            description="How long a PIN can be verified, e.g. 15m (units: ms, s, m, h, d)."
            required
            {...form.getInputProps("pinTimeToLive")}
          />
          <TextInput
            label="Verify limit per PIN"
            description="Verify calls per PIN in a time window, e.g. 1/3s."
            required
            {...form.getInputProps("verifyPinLimit")}
          />
          <TextInput
            label="Send limit per application"
            description="PINs sent in a time window, e.g. 10000/1d."
            required
            {...form.getInputProps("sendPinPerApplicationLimit")}
          />
          <TextInput
            label="Send limit per phone number"
            description="PINs sent to one number in a time window, e.g. 3/1d."
            required
            {...form.getInputProps("sendPinPerPhoneNumberLimit")}
          />
        </SimpleGrid>
        <Checkbox
          label="Allow verifying a PIN more than once"
          {...form.getInputProps("allowMultiplePinVerifications", { type: "checkbox" })}
        />
        <SaveFooter
          saving={saving}
          submitLabel={application ? "Save application" : "Create application"}
          onCancel={() => onClose()}
        />
      </Stack>
    </form>
  );
}
