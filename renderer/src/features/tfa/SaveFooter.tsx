import { Alert, Button, Group } from "@mantine/core";
import { BridgeFailure, errorText } from "../../bridgeHooks.ts";

/**
 * The end of a 2FA dialog's form: why it was not saved (unless the service named fields, which the
 * form shows at those fields), Cancel, and the submit button. The buttons stay at the dialog's
 * bottom edge while its form scrolls: in a short window (800×600) they were below it.
 */
export function SaveFooter(props: {
  saving: { isError: boolean; isPending: boolean; error: unknown };
  submitLabel: string;
  onCancel(): void;
}) {
  const { saving } = props;
  const fieldRefused = saving.error instanceof BridgeFailure && saving.error.error.validationErrors;
  return (
    <>
      {saving.isError && !fieldRefused && (
        <Alert color="red" role="alert" title="Not saved">
          {errorText(saving.error)}
        </Alert>
      )}
      <Group justify="flex-end" className="kd-sticky-footer" data-testid="dialog-footer">
        <Button variant="default" onClick={() => props.onCancel()}>
          Cancel
        </Button>
        <Button type="submit" loading={saving.isPending}>
          {props.submitLabel}
        </Button>
      </Group>
    </>
  );
}
