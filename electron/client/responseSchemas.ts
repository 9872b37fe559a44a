import { accountAnswerSchemas } from "../../shared/accountAnswers.ts";
import { apiKeyAnswerSchemas } from "../../shared/apiKeyAnswers.ts";
import { errorBodySchema as sharedErrorBodySchema } from "../../shared/errorBody.ts";
import { pinAnswerSchemas } from "../../shared/pinAnswers.ts";

/**
 * What the client accepts from a key service, local or remote: every answer is checked here
 * before the app uses it (a remote may be anything that answers HTTP). Unknown fields are dropped.
 */

/** The key-management answers, the fields the service declares, checked leniently (apiKeyAnswers.ts). */
const apiKeyAnswers = apiKeyAnswerSchemas(false);

/** A key's usage over time as our own service answers it (…/usage-series). */
export const keyUsageSeriesSchema = apiKeyAnswers.keyUsageSeries;

/** A key, with our own service's extras (include=) when it sends them. */
export const apiKeySchema = apiKeyAnswers.apiKeyWithExtras;

export const apiKeyListSchema = apiKeyAnswers.apiKeyList(apiKeySchema);

/** A page of the list: a service that pages says so with nextCursor (null on the last page). */
export const apiKeyPageSchema = apiKeyAnswers.apiKeyPage(apiKeySchema);

export const apiKeyCountSchema = apiKeyAnswers.apiKeyCount;

/** The accounts the credentials manage, as the service declares them, checked leniently. */
export const accountListSchema = accountAnswerSchemas(false).accountList;

/** The PIN inbox's answers, the fields the service declares, checked leniently (pinAnswers.ts). */
const pinAnswers = pinAnswerSchemas(false);
export const capturedPinSchema = pinAnswers.capturedPin;
export const pinStateSchema = pinAnswers.pinState;
export const capturedPinListSchema = pinAnswers.capturedPinList;

/** Any service's error body, the fields the service declares (shared/errorBody.ts), checked leniently. */
export const errorBodySchema = sharedErrorBodySchema(false);
