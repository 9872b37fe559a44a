import { z } from "zod";
import { ANY_ID_PATTERN } from "./apiKeys.ts";
import { callProfileSchema } from "./keyArgumentSchemas.ts";
import type { ApplicationDto, MessageTemplateDto } from "./tfa.ts";
import {
  createApplicationSchema,
  createTemplateSchema,
  updateApplicationSchema,
  updateTemplateSchema,
} from "./tfaSchemas.ts";

/**
 * The bridge methods of 2FA applications and their message templates (the 2FA developer's
 * configuration), kept apart from shared/bridge.ts like the sync methods. The request bodies are
 * the service's own schemas (shared/tfaSchemas.ts), so main refuses what the service would.
 *
 * The 2FA API acts in the credentials' own account only: `accountKey` is `_` or that account's
 * key; a sub-account's applications need the sub-account's own credentials (main says so).
 */

/** The profile a call acts on (see profileIdSchema). */
const profile = callProfileSchema;
const accountKey = z.string().regex(ANY_ID_PATTERN, "must be _ or an accountKey").default("_");
// The service's ids are 32 uppercase hex; a remote may spell its own, never with a slash.
const applicationId = z.string().regex(ANY_ID_PATTERN, "must be an applicationId (printable, without /)");
const messageId = z.string().regex(ANY_ID_PATTERN, "must be a messageId (printable, without /)");

export const tfaBridgeArgumentSchemas = {
  "tfa.applications.list": z.strictObject({ profile, accountKey }),
  "tfa.applications.create": z.strictObject({ profile, accountKey, request: createApplicationSchema }),
  "tfa.applications.update": z.strictObject({
    profile,
    accountKey,
    applicationId,
    request: updateApplicationSchema,
  }),
  "tfa.templates.list": z.strictObject({ profile, accountKey, applicationId }),
  "tfa.templates.create": z.strictObject({
    profile,
    accountKey,
    applicationId,
    request: createTemplateSchema,
  }),
  "tfa.templates.update": z.strictObject({
    profile,
    accountKey,
    applicationId,
    messageId,
    request: updateTemplateSchema,
  }),
} as const;

export interface TfaBridgeResults {
  "tfa.applications.list": ApplicationDto[];
  "tfa.applications.create": ApplicationDto;
  "tfa.applications.update": ApplicationDto;
  "tfa.templates.list": MessageTemplateDto[];
  "tfa.templates.create": MessageTemplateDto;
  "tfa.templates.update": MessageTemplateDto;
}
