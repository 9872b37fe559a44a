import { Progress, Stack, Text } from "@mantine/core";
import { passwordStrength, type StrengthLevel } from "./passwordStrength.ts";

const METER_COLOR: Record<StrengthLevel, string> = {
  "too-short": "red",
  weak: "red",
  fair: "yellow",
  good: "teal",
  strong: "green",
};

/**
 * The password's strength as a meter and a sentence, announced as it changes. `minLength`: a
 * stricter floor than the hint's own (a backup's passphrase needs 12), said instead while short.
 */
export function StrengthHint({
  password,
  username,
  minLength,
}: {
  password: string;
  username: string;
  minLength?: number;
}) {
  if (password === "") return null;
  const measured = passwordStrength(password, username);
  const strength =
    minLength !== undefined && [...password].length < minLength
      ? {
          ...measured,
          level: "too-short" as const,
          score: 0 as const,
          hint: `Too short: use at least ${minLength} characters.`,
        }
      : measured;
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
