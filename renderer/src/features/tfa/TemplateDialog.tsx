import { Fieldset, NumberInput, Select, SimpleGrid, Stack, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import {
  type MessageTemplateDto,
  PIN_PLACEHOLDER,
  PIN_TYPES,
  TEMPLATE_LANGUAGES,
} from "../../../../shared/tfa.ts";
import { PIN_LENGTH_RANGE, SENDER_MAX_LENGTH } from "../../../../shared/tfaSchemas.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { GuardedModal } from "./GuardedModal.tsx";
import { SaveFooter } from "./SaveFooter.tsx";
import {
  formErrorsOf,
  type TemplateFormValues,
  templateFormErrors,
  templateFormValues,
  templateRequestOf,
} from "./tfaForms.ts";
import { useCreateTemplate, useUpdateTemplate } from "./tfaHooks.ts";

export interface TemplateDialogProps {
  accountKey: string;
  applicationId: string;
  applicationName: string;
  /** The template to edit; none: a new one. */
  template?: MessageTemplateDto;
  onClose(saved?: MessageTemplateDto): void;
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });
/** "German (de)": the provider's codes use `_` where BCP 47 has `-`. */
const LANGUAGE_OPTIONS = TEMPLATE_LANGUAGES.map((code) => ({
  value: code,
  label: `${languageNames.of(code.replace("_", "-")) ?? code} (${code})`,
}));

/** The form of a template, checked with the service's schema. */
function useTemplateForm(template: MessageTemplateDto | undefined) {
  return useForm<TemplateFormValues>({
    initialValues: templateFormValues(template),
    validate: (values) => templateFormErrors(values, template ? "update" : "create"),
    validateInputOnBlur: true,
  });
}

/** Creates a message template of an application, or edits one. */
export function TemplateDialog(props: TemplateDialogProps) {
  const { template, applicationName, onClose } = props;
  const form = useTemplateForm(template);
  return (
    <GuardedModal
      title={template ? `Edit a template of ${applicationName}` : `New template of ${applicationName}`}
      dirty={form.isDirty()}
      onClose={() => onClose()}
    >
      <TemplateForm {...props} form={form} />
    </GuardedModal>
  );
}

function TemplateForm({
  accountKey,
  applicationId,
  template,
  onClose,
  form,
}: TemplateDialogProps & { form: ReturnType<typeof useTemplateForm> }) {
  const create = useCreateTemplate();
  const update = useUpdateTemplate();
  const saving = template ? update : create;
  const submit = form.onSubmit((values) => {
    const callbacks = {
      onSuccess: (saved: MessageTemplateDto) => onClose(saved),
      onError: (error: Error) => {
        if (error instanceof BridgeFailure && error.error.validationErrors) {
          form.setErrors(formErrorsOf(error.error.validationErrors));
        }
      },
    };
    if (template) {
      update.mutate(
        {
          accountKey,
          applicationId,
          messageId: template.messageId,
          request: templateRequestOf(values, "update"),
        },
        callbacks,
      );
    } else {
      create.mutate({ accountKey, applicationId, request: templateRequestOf(values, "create") }, callbacks);
    }
  });
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Textarea
          label="Message text"
          description={`${PIN_PLACEHOLDER} becomes the PIN; {{name}} a placeholder of the send request.`}
          autosize
          minRows={2}
          maxRows={8}
          required
          data-autofocus
          {...form.getInputProps("messageText")}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Select
            label="PIN type"
            data={[...PIN_TYPES]}
            allowDeselect={false}
            required
            {...form.getInputProps("pinType")}
          />
          <NumberInput
            label="PIN length"
            description={`${PIN_LENGTH_RANGE.min} to ${PIN_LENGTH_RANGE.max} characters.`}
            min={PIN_LENGTH_RANGE.min}
            max={PIN_LENGTH_RANGE.max}
            clampBehavior="none"
            allowDecimal={false}
            allowNegative={false}
            required
            {...form.getInputProps("pinLength")}
          />
          <Select
            label="Language"
            description="Of the voice message."
            data={LANGUAGE_OPTIONS}
            allowDeselect={false}
            searchable
            {...form.getInputProps("language")}
          />
          <TextInput
            label="Sender"
            description={`Up to ${SENDER_MAX_LENGTH} characters; empty: none.`}
            {...form.getInputProps("senderId")}
          />
          <NumberInput
            label="Speech rate"
            description="Of the voice message: 0.5 to 2."
            min={0.5}
            max={2}
            step={0.1}
            decimalScale={2}
            clampBehavior="none"
            {...form.getInputProps("speechRate")}
          />
          <TextInput
            label="Repeat key (DTMF)"
            description="Keys that replay a voice message, e.g. 1#; empty: none."
            {...form.getInputProps("repeatDTMF")}
          />
          <TextInput
            label="Voice name"
            description="Empty: the default voice."
            {...form.getInputProps("voiceName")}
          />
        </SimpleGrid>
        <Fieldset legend="India DLT registration (only for messages to India)" variant="filled">
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
            <TextInput label="Principal entity ID" {...form.getInputProps("dltPrincipalEntityId")} />
            <TextInput label="Content template ID" {...form.getInputProps("dltContentTemplateId")} />
            <TextInput label="Telemarketer ID" {...form.getInputProps("dltTeleMarketerId")} />
          </SimpleGrid>
        </Fieldset>
        <SaveFooter
          saving={saving}
          submitLabel={template ? "Save template" : "Create template"}
          onCancel={() => onClose()}
        />
      </Stack>
    </form>
  );
}
