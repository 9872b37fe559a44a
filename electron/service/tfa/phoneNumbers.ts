/**
 * Destination numbers (`to`, `msisdn`): digits only, optionally with one leading `+`, 5 to 15
 * digits (E.164 allows at most 15). Stored and answered without the `+`, as the provider does.
 */

const MSISDN = /^\+?(\d{5,15})$/;

export const MSISDN_HINT =
  "5 to 15 digits in international format, optionally with a leading +, e.g. 41793026727";

/** The normalized number (digits only), or null when the text is not a phone number. */
export function normalizeMsisdn(text: string): string | null {
  const match = MSISDN.exec(text);
  return match ? (match[1] as string) : null;
}

/** What a search for a number may contain besides digits: the ways people write numbers. */
const NUMBER_PUNCTUATION = /[\s+\-()./]/g;

export const NUMBER_PART_HINT =
  "digits of a phone number, whole or a part (spaces, +, -, dots, slashes and brackets are ignored), e.g. 4179 or +41 79 302";

/**
 * The digits of a number searched for, whole or in part, written as people do ("+41 79 302",
 * "(079) 302-67"), or null when the text has other characters or no digit, or more than 15.
 */
export function numberPartDigits(text: string): string | null {
  const digits = text.replace(NUMBER_PUNCTUATION, "");
  return /^\d{1,15}$/.test(digits) ? digits : null;
}
