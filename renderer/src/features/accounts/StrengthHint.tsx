import { Progress, Stack, Text } from "@mantine/core";
import { passwordStrength, type StrengthLevel } from "./passwordStrength.ts";

const METER_COLOR: Record<StrengthLevel, string> = {
  "too-short": "red",
  weak: "red",
  fair: "yellow",
  good: "teal",
  strong: "green",
};

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
