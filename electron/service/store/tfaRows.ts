import type { ApplicationConfigurationDto } from "../../../shared/tfa.ts";
import type { StoredApplication, StoredTemplate, TemplateFields } from "../domain/tfaRecords.ts";

// 2FA applications and message templates: rows and codecs the same on SQLite (tfaStore.ts) and
// PostgreSQL (postgres/postgresTfa.ts). No SQL dialect and no connection here, so neither store
// imports the other's code.

/** An application's row, as SQLite (0/1) or PostgreSQL (boolean) returns it. */
export interface ApplicationRow {
  id: number;
  application_id: string;
  account_id: number;
  name: string;
  enabled: number | boolean;
  configuration: string;
}

export interface TemplateRow {
  id: number;
  message_id: string;
  application_ref: number;
  application_id: string;
  fields: string;
}

// Plain SQL both databases read the same way (no parameters in them).
export const APPLICATION_COLUMNS = "id, application_id, account_id, name, enabled, configuration";
export const TEMPLATE_SELECT = `SELECT t.id, t.message_id, t.application_ref, a.application_id, t.fields
  FROM tfa_templates t JOIN tfa_applications a ON a.id = t.application_ref`;

export function toApplication(row: ApplicationRow): StoredApplication {
  return {
    id: row.id,
    applicationId: row.application_id,
    accountId: row.account_id,
    name: row.name,
    enabled: row.enabled === true || row.enabled === 1,
    configuration: JSON.parse(row.configuration) as ApplicationConfigurationDto,
  };
}

export function toTemplate(row: TemplateRow): StoredTemplate {
  return {
    ...(JSON.parse(row.fields) as TemplateFields),
    id: row.id,
    messageId: row.message_id,
    applicationRef: row.application_ref,
    applicationId: row.application_id,
  };
}

/** The template just inserted with row id `id`, as a read of it would answer. */
export function insertedTemplate(
  application: StoredApplication,
  id: number,
  messageId: string,
  fields: TemplateFields,
): StoredTemplate {
  return {
    ...fields,
    id,
    messageId,
    applicationRef: application.id,
    applicationId: application.applicationId,
  };
}
