import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import { MESSAGE_IDS } from "./messageIds.ts";

/**
 * The one error body of every answer of the key service (shared/apiErrors.ts), one set of fields
 * for both sides (see answerFields.ts): the service's document declares it strict (closed at every
 * level), the HTTP client reads any service's errors with it lenient.
 */
export function errorBodySchema(strict: boolean) {
  const { object, promised } = answerFields(strict);
  const messages = promised(z.array(z.string()).min(1), z.array(z.string()));
  return object({
    requestError: object({
      serviceException: object({
        messageId: z.enum(MESSAGE_IDS),
        text: promised(z.string().min(1), z.string()).meta({
          description: "What is wrong and how to fix it",
        }),
        // An object of any field names (catchall, not record: names are JSON's strings anyway).
        validationErrors: object({})
          .catchall(messages)
          .meta({
            description: "Each invalid field (nested ones by dotted path) and what is wrong with it",
            ...(strict && { minProperties: 1 }),
          })
          .optional(),
      }),
    }),
  });
}
