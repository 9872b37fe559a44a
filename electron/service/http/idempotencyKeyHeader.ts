import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { IDEMPOTENCY_KEY_HEADER } from "../../../shared/httpHeaders.ts";
import { badRequest } from "../errors.ts";

const INVALID =
  "the Idempotency-Key header is not valid; send it once, as 1 to 255 visible ASCII characters (a UUID is a good choice)";

/** 1–255 visible ASCII characters (0x21–0x7E): no spaces, no control or non-ASCII characters. */
const idempotencyKey = z
  .string()
  .min(1, "must be 1 to 255 characters long")
  .max(255, "must be 1 to 255 characters long")
  .regex(/^[\x21-\x7E]+$/, "must contain only visible ASCII characters (0x21-0x7E), no spaces");

/** The header as the routes that take it declare it (read by idempotencyKeyOf, which counts repeats). */
export const idempotencyKeyHeaders = z.object({
  [IDEMPOTENCY_KEY_HEADER]: idempotencyKey.optional().meta({
    description:
      "Makes the create safe to retry: the same key with the same request (same caller, path and body) within 24 hours answers the first successful answer again (the same key and publicApiKey) and creates nothing; with a different request it is a 409. Scoped to the authenticated account. Only successful answers are remembered. 1–255 visible ASCII characters (0x21–0x7E), given once.",
  }),
});

/**
 * The `Idempotency-Key` of a request, or undefined when it has none. Counted in the raw headers:
 * Node joins repeated headers into one value, which must not pass for a key that was given once.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    if ((raw[index] as string).toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase())
      values.push(raw[index + 1] as string);
  }
  if (values.length === 0) return undefined;
  if (values.length > 1) throw badRequest(INVALID, { [IDEMPOTENCY_KEY_HEADER]: ["must be given once"] });
  const parsed = idempotencyKey.safeParse(values[0]);
  if (!parsed.success) {
    throw badRequest(INVALID, { [IDEMPOTENCY_KEY_HEADER]: [parsed.error.issues[0]?.message as string] });
  }
  return parsed.data;
}
