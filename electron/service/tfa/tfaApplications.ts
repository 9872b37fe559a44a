import type { ApplicationDto, MessageTemplateDto } from "../../../shared/tfa.ts";
import { newKeyId } from "../domain/identifiers.ts";
import { badRequest, notFound } from "../errors.ts";
import type { Account } from "../store/accountStore.ts";
import type { GroupCommit } from "../store/groupCommit.ts";
import type { TfaStore } from "../store/tfaStore.ts";
import {
  applicationAfterUpdate,
  applicationForCreate,
  type StoredApplication,
  type StoredTemplate,
  templateAfterUpdate,
  templateForCreate,
  toApplicationDto,
  toTemplateDto,
} from "./applicationRules.ts";
import {
  createApplicationSchema,
  createTemplateSchema,
  updateApplicationSchema,
  updateTemplateSchema,
} from "./schemas.ts";
import { parseOrBadRequest } from "./validation.ts";

/** applicationId, messageId and pinId: 32 uppercase hex digits, like the provider's. */
export const TFA_ID_PATTERN = /^[0-9A-F]{32}$/;
export const INVALID_BODY = "the request has invalid fields; see validationErrors";

/** An identifier as shown in an error text (a long junk value is cut). */
export const shownId = (id: string) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);

const parseBody = <S extends Parameters<typeof parseOrBadRequest>[0]>(schema: S, body: unknown) =>
  parseOrBadRequest(schema, body, INVALID_BODY);

/** 2FA applications and message templates of the caller's own account. */
export class TfaApplications {
  readonly #store: TfaStore;
  readonly #writes: GroupCommit;
  readonly #now: () => number;

  constructor(store: TfaStore, writes: GroupCommit, now: () => number = Date.now) {
    this.#store = store;
    this.#writes = writes;
    this.#now = now;
  }

  storedApplication(account: Account, applicationId: string): StoredApplication {
    const stored = TFA_ID_PATTERN.test(applicationId)
      ? this.#store.application(account.id, applicationId)
      : undefined;
    if (!stored) throw notFound(`no 2FA application ${shownId(applicationId)} in this account`);
    return stored;
  }

  storedTemplate(application: StoredApplication, messageId: string): StoredTemplate {
    const stored = TFA_ID_PATTERN.test(messageId) ? this.#store.template(application, messageId) : undefined;
    if (!stored) {
      throw notFound(
        `no message template ${shownId(messageId)} in 2FA application ${application.applicationId}`,
      );
    }
    return stored;
  }

  list(account: Account): ApplicationDto[] {
    return this.#store.applications(account.id).map(toApplicationDto);
  }

  async create(account: Account, body: unknown): Promise<ApplicationDto> {
    const fields = applicationForCreate(parseBody(createApplicationSchema, body));
    const stored = await this.#writes.run(() =>
      this.#store.insertApplication(account.id, newKeyId(), fields, this.#now()),
    );
    return toApplicationDto(stored);
  }

  get(account: Account, applicationId: string): ApplicationDto {
    return toApplicationDto(this.storedApplication(account, applicationId));
  }

  /** Reads, merges and writes in one step, so concurrent updates cannot lose each other's fields. */
  async update(account: Account, applicationId: string, body: unknown): Promise<ApplicationDto> {
    const updated = await this.#writes.run(() => {
      const stored = this.storedApplication(account, applicationId);
      const fields = applicationAfterUpdate(stored, parseBody(updateApplicationSchema, body));
      if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
      return this.#store.updateApplication(stored, fields.value, this.#now());
    });
    return toApplicationDto(updated);
  }

  listTemplates(account: Account, applicationId: string): MessageTemplateDto[] {
    return this.#store.templates(this.storedApplication(account, applicationId)).map(toTemplateDto);
  }

  async createTemplate(account: Account, applicationId: string, body: unknown): Promise<MessageTemplateDto> {
    const created = await this.#writes.run(() => {
      const application = this.storedApplication(account, applicationId);
      const fields = templateForCreate(parseBody(createTemplateSchema, body));
      return this.#store.insertTemplate(application, newKeyId(), fields, this.#now());
    });
    return toTemplateDto(created);
  }

  getTemplate(account: Account, applicationId: string, messageId: string): MessageTemplateDto {
    return toTemplateDto(this.storedTemplate(this.storedApplication(account, applicationId), messageId));
  }

  async updateTemplate(
    account: Account,
    applicationId: string,
    messageId: string,
    body: unknown,
  ): Promise<MessageTemplateDto> {
    const updated = await this.#writes.run(() => {
      const stored = this.storedTemplate(this.storedApplication(account, applicationId), messageId);
      const fields = templateAfterUpdate(stored, parseBody(updateTemplateSchema, body));
      if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
      return this.#store.updateTemplate(stored, fields.value, this.#now());
    });
    return toTemplateDto(updated);
  }
}
