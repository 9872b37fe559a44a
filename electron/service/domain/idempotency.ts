/**
 * Idempotent creates (Idempotency-Key): what makes two requests "the same", and what a remembered
 * request answers. The store keeps the records (sealed); the key service decides with them.
 */

/** What identifies "the same request" besides the key: path with parameters resolved, and body. */
export interface IdempotentRequest {
  method: string;
  path: string;
  /** The parsed JSON body; absent counts as `{}`. */
  body: unknown;
}

/** A remembered successful answer: status and the JSON body text sent. */
export interface RememberedAnswer {
  status: number;
  body: string;
}

export type IdempotencyLookup =
  | { kind: "new" }
  | { kind: "replay"; answer: RememberedAnswer }
  | { kind: "conflict" };
