import { z } from "zod";

/** Building blocks of the OpenAPI document, shared by the key-management and 2FA parts. */

/** The JSON Schema of a request as the zod schema the service validates it with accepts it. */
export const jsonSchemaOf = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return rest;
};

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: object) => ({ "application/json": { schema } });

/** A datetime as the service answers it (always UTC). */
export const API_DATETIME = {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\+0000$",
  description: "yyyy-MM-ddTHH:mm:ss.SSS+0000",
};
