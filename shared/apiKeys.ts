import { z } from "zod";
import { nameProblems, PERMISSIONS } from "./apiKeyRules.ts";
import { DATETIME_FORMAT_HINT, DATETIME_INPUT_PATTERN, parseApiDateTime } from "./datetime.ts";
import { MAX_ALLOWED_IPS, normalizeIpEntry } from "./ip.ts";

// The request schemas of the key resource (zod); the resource's types and rules are in
// apiKeyRules.ts, re-exported here so that main and the service import one module.
export * from "./apiKeyRules.ts";

const typeError =
  (expected: string, nullMessage = `must be ${expected}`) =>
  (issue: { input?: unknown }) =>
    issue.input === undefined ? "is required" : issue.input === null ? nullMessage : `must be ${expected}`;

function nameSchema(nullMessage: string) {
  return z.string({ error: typeError("a string", nullMessage) }).superRefine((value, ctx) => {
    for (const message of nameProblems(value)) ctx.addIssue({ code: "custom", message });
  });
}

const allowedIPsSchema = z
  .array(z.string({ error: "every entry must be a string" }), {
    error: typeError("an array of IP addresses or CIDR ranges"),
  })
  .max(MAX_ALLOWED_IPS, { error: `must have at most ${MAX_ALLOWED_IPS} entries` })
  .superRefine((entries, ctx) => {
    entries.forEach((entry, index) => {
      if (normalizeIpEntry(entry) === null) {
        const shown = entry.length > 60 ? `${entry.slice(0, 60)}…` : entry;
        ctx.addIssue({
          code: "custom",
          message: `entry ${index} (${JSON.stringify(shown)}) is not an IPv4 or IPv6 address or CIDR range`,
        });
      }
    });
  });

const permissionsSchema = z
  .array(z.enum(PERMISSIONS, { error: `every entry must be one of ${PERMISSIONS.join(", ")}` }), {
    error: typeError(`an array of permission groups (${PERMISSIONS.join(", ")})`),
  })
  .min(1, { error: "must name at least one permission group (ALL or TFA)" });

const dateTimeSchema = z
  .string({ error: typeError(`a datetime string (${DATETIME_FORMAT_HINT})`) })
  .refine((value) => parseApiDateTime(value) !== null, {
    error: `must be a valid datetime in the form ${DATETIME_FORMAT_HINT}`,
  })
  // For the OpenAPI document: the syntax a client may send (the calendar is checked as well).
  .meta({
    description: `${DATETIME_FORMAT_HINT}; the fraction is rounded half-up to milliseconds; answered in UTC as yyyy-MM-ddTHH:mm:ss.SSS+0000`,
    pattern: DATETIME_INPUT_PATTERN,
  });

/** Fields the service assigns; an update may repeat them only unchanged. */
const assignedField = z.string({ error: "must be a string" });

export const createApiKeyRequestSchema = z.strictObject(
  {
    name: nameSchema("is required"),
    allowedIPs: allowedIPsSchema.nullable().optional(),
    permissions: permissionsSchema.optional(),
    validFrom: dateTimeSchema.nullable().optional(),
    validTo: dateTimeSchema.nullable().optional(),
  },
  { error: "the request body must be a JSON object" },
);

export const updateApiKeyRequestSchema = z.strictObject(
  {
    name: nameSchema("cannot be cleared").optional(),
    allowedIPs: allowedIPsSchema.nullable().optional(),
    permissions: permissionsSchema.optional(),
    validFrom: dateTimeSchema.nullable().optional(),
    validTo: dateTimeSchema.nullable().optional(),
    enabled: z.boolean({ error: typeError("true or false") }).optional(),
    key: assignedField.optional(),
    publicApiKey: assignedField.optional(),
    accountKey: assignedField.optional(),
  },
  { error: "the request body must be a JSON object" },
);

export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequestSchema>;
export type UpdateApiKeyRequest = z.infer<typeof updateApiKeyRequestSchema>;
