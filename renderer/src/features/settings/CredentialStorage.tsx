import { Badge, Card, Code, Group, List, Stack, Text, Title } from "@mantine/core";
import type { ServiceStatusDto } from "../../../../shared/bridge.ts";
import { KEYCHAIN_BUILD_PACKAGES, KEYCHAIN_RUNTIME_PACKAGES } from "../../../../shared/keychainPackages.ts";
import { useServiceStatus } from "../../bridgeHooks.ts";

/** The reason as the end of a sentence: reasons come with or without their own full stop. */
function asSentenceEnd(reason: string | undefined): string {
  const text = (reason ?? "the reason is not known").trim();
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Without a keychain: what is kept where, why, and how to get the keychain. */
function SessionOnlyDetails({ status }: { status: ServiceStatusDto }) {
  return (
    <>
      <Text size="sm" data-testid="keychain-reason">
        No OS keychain can be used: {asSentenceEnd(status.keychainUnavailableReason)}
      </Text>
      <List size="sm" spacing="xs">
        <List.Item>
          <b>Remote profile passwords</b> are kept for this session only: after Keydesk restarts, enter them
          again (Profiles → Edit).
        </List.Item>
        <List.Item data-testid="local-secrets">
          <b>The Local service's owner password and data key</b> are kept in the files{" "}
          <Code>owner.password</Code> and <Code>data.key</Code> in{" "}
          {status.localSecretsDir ? (
            // A long path breaks anywhere rather than pushing the card wider than the window.
            <Code style={{ wordBreak: "break-all" }} data-testid="local-secrets-dir">
              {status.localSecretsDir}
            </Code>
          ) : (
            "the Local service's data folder"
          )}
          , readable only by you; they stay the same across restarts, so apps configured with the owner's
          password keep working.
        </List.Item>
      </List>
      <Text size="sm" data-testid="keychain-linux-hint">
        To use the OS keychain on Linux, Keydesk needs at run time libsecret and a Secret Service such as
        gnome-keyring (<Code>apt-get install {KEYCHAIN_RUNTIME_PACKAGES}</Code>), running and unlocked in your
        D-Bus session: logging in to a desktop session does that; without a desktop, run Keydesk under{" "}
        <Code>dbus-run-session</Code> with gnome-keyring unlocked (the desktop guide's "A headless Linux
        keychain"). If the reason above says keytar is not installed, install{" "}
        <Code>{KEYCHAIN_BUILD_PACKAGES}</Code> and run <Code>npm install</Code> again. Then restart Keydesk.
      </Text>
    </>
  );
}

/** Where Keydesk keeps credentials (read-only: the vault is chosen when Keydesk starts). */
export function CredentialStorage() {
  const status = useServiceStatus();
  const keychain = status.data?.keychain;
  return (
    <Card
      withBorder
      component="section"
      aria-labelledby="credential-storage-title"
      data-testid="credential-storage"
      data-keychain={keychain}
    >
      <Stack gap="sm">
        <Group gap="sm">
          <Title order={3} id="credential-storage-title">
            Where credentials are kept
          </Title>
          {keychain && (
            <Badge color={keychain === "os" ? "gray" : "yellow"} variant="dot">
              {keychain === "os" ? "OS keychain" : "No OS keychain"}
            </Badge>
          )}
        </Group>
        {status.isPending && <Text size="sm">Checking…</Text>}
        {status.data?.keychain === "os" && (
          <Text size="sm">
            Remote profile passwords, the Local service's owner password and its data key are kept in the OS
            keychain.
          </Text>
        )}
        {status.data?.keychain === "session-only" && <SessionOnlyDetails status={status.data} />}
      </Stack>
    </Card>
  );
}
