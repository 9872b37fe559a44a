import { SegmentedControl, Stack, Text } from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import dayjs from "dayjs";
import { formatLocal, formatRelative } from "../../time.ts";
import { EXPIRY_CHOICES, type ExpiryChoice, validToFor } from "./expiryPresets.ts";

/**
 * A key's end as the admin chooses it: the expiry presets (expiryPresets.ts) with the end they
 * give in words, and the local date-time picker. Used by the key form and the roll dialog (the
 * successor's end), so both offer the same choices.
 */

const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A date-time picker in local time, the zone named, every control labelled. */
export function LocalDateTimeField(props: {
  label: string;
  placeholder: string;
  value: string | null;
  onChange(value: string | null): void;
  error: string | undefined;
}) {
  return (
    <DateTimePicker
      label={props.label}
      description={`Local time (${LOCAL_ZONE})`}
      placeholder={props.placeholder}
      clearable
      withSeconds
      valueFormat="YYYY-MM-DD HH:mm:ss"
      value={props.value}
      onChange={props.onChange}
      error={props.error}
      clearButtonProps={{ "aria-label": `Clear ${props.label}` }}
      submitButtonProps={{ "aria-label": `Apply ${props.label}` }}
      nextLabel="Next month"
      previousLabel="Previous month"
      timePickerProps={{
        hoursInputLabel: "Hours",
        minutesInputLabel: "Minutes",
        secondsInputLabel: "Seconds",
      }}
    />
  );
}

/** When the key ends, in words: the date a preset or the picker gave, and how far away it is. */
function EndStatement(props: { validTo: string | null; choice: ExpiryChoice; testId: string }) {
  if (props.validTo === null) {
    return (
      <Text size="sm" c="dimmed" data-testid={props.testId}>
        {props.choice === "date" ? "No end yet: pick one at Valid to." : "No end: the key never expires."}
      </Text>
    );
  }
  const end = dayjs(props.validTo).valueOf();
  return (
    <Text size="sm" data-testid={props.testId}>
      Ends {formatLocal(end)} ({formatRelative(end, Date.now())})
    </Text>
  );
}

/** "Ends": the presets as one control, and the end they give in words (test id `id`). */
export function EndsChoice(props: {
  id: string;
  /** "Ends" unless told. */
  label?: string;
  choice: ExpiryChoice;
  /** As the picker holds it ("YYYY-MM-DD HH:mm:ss", local), or null. */
  validTo: string | null;
  validFrom: string | null;
  onChange(choice: ExpiryChoice, validTo: string | null): void;
}) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={`${props.id}-label`}>
        {props.label ?? "Ends"}
      </Text>
      <SegmentedControl
        aria-labelledby={`${props.id}-label`}
        fullWidth
        data={EXPIRY_CHOICES}
        value={props.choice}
        onChange={(value) => {
          const choice = value as ExpiryChoice;
          props.onChange(choice, validToFor(choice, Date.now(), props.validTo, props.validFrom));
        }}
      />
      <EndStatement validTo={props.validTo} choice={props.choice} testId={props.id} />
    </Stack>
  );
}
