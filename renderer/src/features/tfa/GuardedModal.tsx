import { Alert, Button, Group, Modal } from "@mantine/core";
import { type ReactNode, useState } from "react";

export interface GuardedModalProps {
  title: string;
  /** The form holds changes not saved yet: Esc, × and a click beside the dialog ask first. */
  dirty: boolean;
  onClose(): void;
  children: ReactNode;
}

/** A dialog of a form that does not drop typed changes on a stray Esc. */
export function GuardedModal({ title, dirty, onClose, children }: GuardedModalProps) {
  const [asking, setAsking] = useState(false);
  return (
    <Modal opened onClose={() => (dirty ? setAsking(true) : onClose())} title={title} size="lg" centered>
      {asking && (
        <Alert
          color="yellow"
          variant="outline"
          title="Discard your changes?"
          mb="md"
          data-testid="discard-changes"
        >
          <Group gap="xs" mt="xs">
            {/* Focused: Enter keeps the changes, the safe answer. */}
            <Button size="xs" variant="default" data-autofocus autoFocus onClick={() => setAsking(false)}>
              Keep editing
            </Button>
            <Button size="xs" color="red.9" onClick={onClose}>
              Discard changes
            </Button>
          </Group>
        </Alert>
      )}
      {children}
    </Modal>
  );
}
