import type {
  ApplicationFields,
  StoredApplication,
  StoredTemplate,
  TemplateFields,
} from "../domain/tfaRecords.ts";
import type { Db } from "./database.ts";
import {
  APPLICATION_COLUMNS,
  type ApplicationRow,
  insertedTemplate,
  TEMPLATE_SELECT,
  type TemplateRow,
  toApplication,
  toTemplate,
} from "./tfaRows.ts";

/** 2FA applications and their message templates, each in its owner's account. */
export class TfaStore {
  readonly #insertApplication;
  readonly #updateApplication;
  readonly #applicationById;
  readonly #applicationsOf;
  readonly #insertTemplate;
  readonly #updateTemplate;
  readonly #templateById;
  readonly #templatesOf;

  constructor(db: Db) {
    this.#insertApplication = db.prepare<Record<string, unknown>, ApplicationRow>(
      `INSERT INTO tfa_applications (application_id, account_id, name, enabled, configuration, created_at, updated_at)
       VALUES (@applicationId, @accountId, @name, @enabled, @configuration, @now, @now)
       RETURNING ${APPLICATION_COLUMNS}`,
    );
    this.#updateApplication = db.prepare(
      `UPDATE tfa_applications SET name = @name, enabled = @enabled, configuration = @configuration,
        updated_at = @now WHERE id = @id`,
    );
    this.#applicationById = db.prepare<[string, number], ApplicationRow>(
      `SELECT ${APPLICATION_COLUMNS} FROM tfa_applications WHERE application_id = ? AND account_id = ?`,
    );
    this.#applicationsOf = db.prepare<[number], ApplicationRow>(
      `SELECT ${APPLICATION_COLUMNS} FROM tfa_applications WHERE account_id = ? ORDER BY id`,
    );
    this.#insertTemplate = db.prepare<Record<string, unknown>, { id: number }>(
      `INSERT INTO tfa_templates (message_id, application_ref, fields, created_at, updated_at)
       VALUES (@messageId, @applicationRef, @fields, @now, @now) RETURNING id`,
    );
    this.#updateTemplate = db.prepare(
      "UPDATE tfa_templates SET fields = @fields, updated_at = @now WHERE id = @id",
    );
    this.#templateById = db.prepare<[string, number], TemplateRow>(
      `${TEMPLATE_SELECT} WHERE t.message_id = ? AND t.application_ref = ?`,
    );
    this.#templatesOf = db.prepare<[number], TemplateRow>(
      `${TEMPLATE_SELECT} WHERE t.application_ref = ? ORDER BY t.id`,
    );
  }

  #applicationColumns(fields: ApplicationFields) {
    return {
      name: fields.name,
      enabled: fields.enabled ? 1 : 0,
      configuration: JSON.stringify(fields.configuration),
    };
  }

  insertApplication(accountId: number, applicationId: string, fields: ApplicationFields, now: number) {
    const row = this.#insertApplication.get({
      ...this.#applicationColumns(fields),
      applicationId,
      accountId,
      now,
    });
    return toApplication(row as ApplicationRow);
  }

  updateApplication(stored: StoredApplication, fields: ApplicationFields, now: number): StoredApplication {
    this.#updateApplication.run({ ...this.#applicationColumns(fields), id: stored.id, now });
    return { ...stored, ...fields };
  }

  /** The account's application with this applicationId. */
  application(accountId: number, applicationId: string): StoredApplication | undefined {
    const row = this.#applicationById.get(applicationId, accountId);
    return row && toApplication(row);
  }

  /** The account's applications in creation order. */
  applications(accountId: number): StoredApplication[] {
    return this.#applicationsOf.all(accountId).map(toApplication);
  }

  insertTemplate(application: StoredApplication, messageId: string, fields: TemplateFields, now: number) {
    const row = this.#insertTemplate.get({
      messageId,
      applicationRef: application.id,
      fields: JSON.stringify(fields),
      now,
    }) as { id: number };
    return insertedTemplate(application, row.id, messageId, fields);
  }

  updateTemplate(stored: StoredTemplate, fields: TemplateFields, now: number): StoredTemplate {
    this.#updateTemplate.run({ fields: JSON.stringify(fields), id: stored.id, now });
    return { ...stored, ...fields };
  }

  /** The application's template with this messageId. */
  template(application: StoredApplication, messageId: string): StoredTemplate | undefined {
    const row = this.#templateById.get(messageId, application.id);
    return row && toTemplate(row);
  }

  /** The application's templates in creation order. */
  templates(application: StoredApplication): StoredTemplate[] {
    return this.#templatesOf.all(application.id).map(toTemplate);
  }
}
