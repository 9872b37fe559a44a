import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import { KEY_ID_PATTERN } from "./apiKeyRules.ts";

/**
 * The accounts a caller's credentials manage (`/local/1/accounts`), one set of fields for both
 * sides (see answerFields.ts): the key service declares it strict, the HTTP client checks it
 * lenient and refuses a list without the caller's own account.
 */
export function accountAnswerSchemas(strict: boolean) {
  const { object, promised } = answerFields(strict);
  const accountKey = z.string().regex(KEY_ID_PATTERN);
  const account = object({
    accountKey,
    username: z.string(),
    parentAccountKey: z
      .union([accountKey, z.null()])
      .meta({ description: "null for the caller's own account" }),
  });
  return {
    account,
    accountList: object({ accounts: promised(z.array(account), z.array(account).min(1)) }),
  };
}
