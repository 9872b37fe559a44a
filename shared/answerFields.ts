import { z } from "zod";

/**
 * What the answer schemas of shared/ (apiKeyAnswers.ts, syncAnswers.ts, ...) are built of. Each
 * shape is one list of fields for both sides of the HTTP boundary: the key service declares it
 * strict (its document promises these fields and no others, in these formats), the HTTP client
 * checks answers with it lenient (a newer or another service may add a field, or spell a format
 * its own way).
 */

/** A datetime as the service answers it (always UTC). */
const apiDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/)
  .meta({ description: "yyyy-MM-ddTHH:mm:ss.SSS+0000" });

/** The builders of one side: closed or open objects, and where the two sides' rules differ. */
export function answerFields(strict: boolean) {
  return {
    object: <Shape extends z.ZodRawShape>(shape: Shape) =>
      (strict ? z.strictObject(shape) : z.object(shape)) as z.ZodObject<Shape>,
    /**
     * The service's promise where it says more than the client asks of any service. Typed as what
     * the client accepts (the app handles any service's answer), and the promise must fit in it.
     */
    promised: <Accepted extends z.ZodType>(promised: z.ZodType<z.output<Accepted>>, accepted: Accepted) =>
      (strict ? promised : accepted) as Accepted,
    /** A datetime: the service's format when strict, any string when lenient. */
    dateTime: strict ? apiDateTime : z.string(),
  };
}
