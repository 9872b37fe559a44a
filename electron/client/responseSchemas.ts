import { z } from "zod";
import { MESSAGE_IDS } from "../../shared/apiErrors.ts";
import {
  ANY_ID_PATTERN,
  KEY_ID_PATTERN,
  PERMISSIONS,
  REFUSAL_REASONS,
  type RefusalReasonName,
} from "../../shared/apiKeys.ts";
import { CALL_STATUSES, SMS_STATUSES } from "../../shared/tfa.ts";

/**
 * What the client accepts from a key service, local or remote: every answer is checked here
 * before the app uses it (a remote may be anything that answers HTTP). Unknown fields are dropped.
 */

const identifier = z.string().regex(ANY_ID_PATTERN);

const usageCountsSchema = z.object({
  allowed: z.number().int().nonnegative(),
  refused: z.object(
    Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, z.number().int().nonnegative()])) as Record<
      RefusalReasonName,
      z.ZodNumber
    >,
  ),
});

/** A key's usage as our own service answers it (include=usage). */
export const keyUsageSchema = z.object({
  lastUsedAt: z.string().nullable(),
  lastUsedFrom: z.string().nullable(),
  lastRefusedAt: z.string().nullable(),
  lastRefusedFrom: z.string().nullable(),
  total: usageCountsSchema,
  last24Hours: usageCountsSchema,
});

/** A key's usage over time as our own service answers it (…/usage-series). */
export const keyUsageSeriesSchema = z.object({
  hours: z.array(usageCountsSchema.extend({ start: z.string() })).max(1_000),
  days: z.array(usageCountsSchema.extend({ start: z.string() })).max(1_000),
});

export const apiKeySchema = z.object({
  name: z.string(),
  key: identifier,
  publicApiKey: z.string().min(1),
  accountKey: identifier,
  allowedIPs: z.array(z.string()).optional(),
  permissions: z.array(z.enum(PERMISSIONS)),
  validFrom: z.string().optional(),
  validTo: z.string().optional(),
  enabled: z.boolean(),
  // Our own service's extras (include=): dropped, not refused, when a service sends something else.
  createdAt: z.string().nullable().optional().catch(undefined),
  usage: keyUsageSchema.optional().catch(undefined),
});

export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeySchema) });

/** A page of the list: a service that pages says so with nextCursor (null on the last page). */
export const apiKeyPageSchema = z.object({
  apiKeys: z.array(apiKeySchema),
  nextCursor: z.string().min(1).max(512).nullable().optional(),
});

export const apiKeyCountSchema = z.object({ count: z.number().int().nonnegative() });

export const tfaApiKeyAnswerSchema = z.string().min(1);

export const accountListSchema = z.object({
  accounts: z
    .array(
      z.object({
        accountKey: z.string().regex(KEY_ID_PATTERN),
        username: z.string(),
        parentAccountKey: z.string().regex(KEY_ID_PATTERN).nullable(),
      }),
    )
    .min(1),
});

export const capturedPinSchema = z.object({
  pinId: z.string(),
  applicationId: z.string(),
  applicationName: z.string().optional(),
  messageId: z.string(),
  to: z.string(),
  channel: z.enum(["SMS", "VOICE"]),
  pin: z.string(),
  text: z.string(),
  sentAt: z.string(),
  expiresAt: z.string(),
  attemptsRemaining: z.number(),
  verified: z.boolean(),
  delivered: z.boolean().optional(),
  // A status this client does not know (a newer service) is left out, not a refused list.
  status: z
    .enum([...SMS_STATUSES, ...CALL_STATUSES])
    .optional()
    .catch(undefined),
});

export const pinStateSchema = z.object({
  pinId: z.string(),
  applicationId: z.string(),
  to: z.string(),
  attemptsRemaining: z.number(),
  verified: z.boolean(),
});

export const capturedPinListSchema = z.object({ pins: z.array(capturedPinSchema) });

export const errorBodySchema = z.object({
  requestError: z.object({
    serviceException: z.object({
      messageId: z.enum(MESSAGE_IDS),
      text: z.string(),
      validationErrors: z.record(z.string(), z.array(z.string())).optional(),
    }),
  }),
});
