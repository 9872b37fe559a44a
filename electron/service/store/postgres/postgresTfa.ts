import type { ApplicationFields } from "../../domain/tfaRecords.ts";
import type { TfaWrites } from "../store.ts";
import {
  APPLICATION_COLUMNS,
  type ApplicationRow,
  insertedTemplate,
  TEMPLATE_SELECT,
  type TemplateRow,
  toApplication,
  toTemplate,
} from "../tfaRows.ts";
import type { Sql } from "./sql.ts";

const applicationColumns = (fields: ApplicationFields) => [
  fields.name,
  fields.enabled,
  JSON.stringify(fields.configuration),
];

/**
 * 2FA applications and their message templates on PostgreSQL, read into the domain's values by
 * the same functions as on SQLite (tfaStore.ts).
 */
export function postgresTfa(sql: Sql): TfaWrites {
  return {
    async application(accountId, applicationId) {
      const [row] = await sql.rows<ApplicationRow>(
        `SELECT ${APPLICATION_COLUMNS} FROM tfa_applications WHERE application_id = $1 AND account_id = $2`,
        [applicationId, accountId],
      );
      return row && toApplication(row);
    },
    applications: async (accountId) =>
      (
        await sql.rows<ApplicationRow>(
          `SELECT ${APPLICATION_COLUMNS} FROM tfa_applications WHERE account_id = $1 ORDER BY id`,
          [accountId],
        )
      ).map(toApplication),
    async template(application, messageId) {
      const [row] = await sql.rows<TemplateRow>(
        `${TEMPLATE_SELECT} WHERE t.message_id = $1 AND t.application_ref = $2`,
        [messageId, application.id],
      );
      return row && toTemplate(row);
    },
    templates: async (application) =>
      (
        await sql.rows<TemplateRow>(`${TEMPLATE_SELECT} WHERE t.application_ref = $1 ORDER BY t.id`, [
          application.id,
        ])
      ).map(toTemplate),
    async insertApplication(accountId, applicationId, fields, now) {
      const [row] = await sql.rows<ApplicationRow>(
        `INSERT INTO tfa_applications (application_id, account_id, name, enabled, configuration, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${APPLICATION_COLUMNS}`,
        [applicationId, accountId, ...applicationColumns(fields), now],
      );
      return toApplication(row as ApplicationRow);
    },
    async updateApplication(stored, fields, now) {
      await sql.count(
        `UPDATE tfa_applications SET name = $1, enabled = $2, configuration = $3, updated_at = $4 WHERE id = $5`,
        [...applicationColumns(fields), now, stored.id],
      );
      return { ...stored, ...fields };
    },
    async insertTemplate(application, messageId, fields, now) {
      const [row] = await sql.rows<{ id: number }>(
        `INSERT INTO tfa_templates (message_id, application_ref, fields, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $4) RETURNING id`,
        [messageId, application.id, JSON.stringify(fields), now],
      );
      return insertedTemplate(application, (row as { id: number }).id, messageId, fields);
    },
    async updateTemplate(stored, fields, now) {
      await sql.count("UPDATE tfa_templates SET fields = $1, updated_at = $2 WHERE id = $3", [
        JSON.stringify(fields),
        now,
        stored.id,
      ]);
      return { ...stored, ...fields };
    },
  };
}
