/**
 * Keydesk's own HTTP headers, spelled once for the side that sends and the side that reads them.
 * Lower case: how Node names them in a request's `headers`. All `keydesk-…`, without the `x-`
 * prefix RFC 6648 retired.
 */

/** To the key service: what kind of client calls (desktop, cli, sync), for its audit; self-declared. */
export const CLIENT_HEADER = "keydesk-client";
/** To the key service: why a create or update is made (rotate, bulk), for its audit; self-declared. */
export const ACTION_HEADER = "keydesk-action";

/** To the browser host: the page's session token, on bridge calls and uploads. */
export const TOKEN_HEADER = "keydesk-token";
/** To the browser host: the uploaded backup's file name, URI-encoded. */
export const UPLOAD_NAME_HEADER = "keydesk-file-name";

/**
 * To the key service: makes a create safe to retry. Spelled as the provider's spec and the service's
 * document name it; Node's `headers` has it lower case, as every other.
 */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
