import { randomInt } from "node:crypto";
import type { PinType } from "../../../shared/tfa.ts";

/**
 * The characters each pinType draws from (letters uppercase; verification ignores letter case).
 * @internal Exported for tests.
 */
export const PIN_ALPHABETS: Record<PinType, string> = {
  NUMERIC: "0123456789",
  ALPHA: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  HEX: "0123456789ABCDEF",
  ALPHANUMERIC: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
};

/** A uniformly random index below `size` (the OS CSPRNG unless a test injects one). */
export type RandomIndex = (size: number) => number;

/** A PIN of `length` characters, each drawn uniformly from the alphabet of `type`. */
export function generatePin(type: PinType, length: number, randomIndex: RandomIndex = randomInt): string {
  const alphabet = PIN_ALPHABETS[type];
  let pin = "";
  for (let i = 0; i < length; i++) pin += alphabet[randomIndex(alphabet.length)];
  return pin;
}
