import { errorResponse, SIGN_IN_LIMITED } from "../openApiErrors.ts";

/**
 * The error answers routes share, declared once: each route spreads or picks the ones it can
 * give, so the generated /openapi.json says the same words for the same failure everywhere.
 */

/** The challenge a 401 on a Basic-only route carries (routes that also take API keys send none). */
export const BASIC_CHALLENGE = {
  "WWW-Authenticate": {
    required: true,
    description: 'Basic realm="key-service", charset="UTF-8"',
    schema: { type: "string", pattern: '^Basic realm="key-service"' },
  },
};

/**
 * The service's own failures, which every operation that reads or writes the store can give: a
 * fault of its own (500), or its storage failing under it (503: a damaged database file or a
 * full disk, answered by app.ts through ServiceStorage.failure).
 */
export const serviceFailures = {
  "500": errorResponse("500", "The service failed; nothing was written"),
  "503": errorResponse(
    "503",
    "The database file is damaged, or its disk is full: the text names the file and what to do; nothing was written",
  ),
};

/** The refusals of reading a request's body, on every method that has one. */
export const bodyErrors = {
  "413": errorResponse("413", "Request body over 64 KiB"),
  "415": errorResponse("415", "Request body is not application/json"),
};

/** The refusals every Basic-credentials operation may answer, and the service's failures. */
export const commonErrors = {
  "400": errorResponse("400", "Invalid input; validationErrors names each field and what is wrong with it"),
  "401": errorResponse(
    "401",
    "Missing or wrong Basic credentials (or an unknown API key or IBSSO token)",
    BASIC_CHALLENGE,
  ),
  "403": errorResponse(
    "403",
    "An API key (App scheme) or an IBSSO session's token was used; management takes Basic credentials only",
  ),
  "404": errorResponse(
    "404",
    "Unknown account or key, or an account the caller does not manage (validationErrors names which: accountKey or key), or (2FA key) an unknown version",
  ),
  "429": errorResponse("429", SIGN_IN_LIMITED),
  ...serviceFailures,
};

/** Operations that take Basic credentials only. */
export const basicOnly = [{ basic: [] }];
