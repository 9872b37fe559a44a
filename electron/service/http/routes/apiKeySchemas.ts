import { z } from "zod";
import { apiKeyAnswerSchemas } from "../../../../shared/apiKeyAnswers.ts";
import { createApiKeyRequestSchema, updateApiKeyRequestSchema } from "../../../../shared/apiKeys.ts";
import { component } from "../routeSchemas.ts";

/** The answers of the key-management routes (apiKeyRoutes.ts), as the document's components. */

export const createApiKeyRequest = component("CreateApiKeyRequest", createApiKeyRequestSchema);
export const updateApiKeyRequest = component("UpdateApiKeyRequest", updateApiKeyRequestSchema);

const answers = apiKeyAnswerSchemas(true);

export const apiKey = component("ApiKey", answers.apiKey);

/** A key's usage (`include=usage`): our own service's extension, never in the spec's default answer. */
component("KeyUsage", answers.keyUsage, {
  description:
    "App-authorized calls of the key since usage recording began (keys older than it count from then), written once a second: a crash loses at most the last second's counts",
});

const apiKeyWithExtras = component(
  "ApiKeyWithExtras",
  // At least one extra: exactly one of ApiKey (closed, none) and this matches a key.
  answers.apiKeyWithExtras.meta({ anyOf: [{ required: ["createdAt"] }, { required: ["usage"] }] }),
  { description: "A key with what include= asked for (at least one of createdAt and usage)" },
);

export const listedApiKey = component("ListedApiKey", z.union([apiKey, apiKeyWithExtras]));

export const apiKeyList = component("ApiKeyList", answers.apiKeyList(listedApiKey));

export const apiKeyPage = component("ApiKeyPage", answers.apiKeyPage(listedApiKey));

export const apiKeyCount = component("ApiKeyCount", answers.apiKeyCount);

export const keyUsageSeries = component("KeyUsageSeries", answers.keyUsageSeries, {
  description:
    "App-authorized calls of the key per hour and per UTC day, oldest first, the current hour and day last; a bucket without calls counts 0. Usage recorded before this service kept days counts from its last 24 hours on",
});
