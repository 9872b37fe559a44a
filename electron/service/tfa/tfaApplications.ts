import { KEY_ID_PATTERN } from "../../../shared/apiKeys.ts";
import type { ApplicationDto, MessageTemplateDto } from "../../../shared/tfa.ts";
import type { Account } from "../domain/accounts.ts";
import { newKeyId } from "../domain/identifiers.ts";
import type { StoredApplication, StoredTemplate } from "../domain/tfaRecords.ts";
import { badRequest, INVALID_BODY, notFound } from "../errors.ts";
import type { Store, TfaReads } from "../store/store.ts";
import {
  applicationAfterUpdate,
  applicationForCreate,
  templateAfterUpdate,
  templateForCreate,
  toApplicationDto,
  toTemplateDto,
} from "./applicationRules.ts";
import type {
  CreateApplicationRequest,
  CreateTemplateRequest,
  UpdateApplicationRequest,
  UpdateTemplateRequest,
} from "./schemas.ts";

/** applicationId, messageId and pinId: 32 uppercase hex digits, like the provider's (and Keydesk's key ids). */
export const TFA_ID_PATTERN = KEY_ID_PATTERN;

/** An identifier as shown in an error text (a long junk value is cut). */
export const shownId = (id: string) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);

/**
 * 2FA applications and message templates of the caller's own account. Requests come validated by
 * their routes (the schemas of schemas.ts); the rules a schema cannot state are checked here.
 */
export class TfaApplications {
  readonly #store: Store;
  readonly #now: () => number;

  constructor(store: Store, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** `reads`: a write's own (tx.tfa) when the answer decides what that write does. */
  async storedApplication(
    account: Account,
    applicationId: string,
    reads: TfaReads = this.#store.tfa,
  ): Promise<StoredApplication> {
    const stored = TFA_ID_PATTERN.test(applicationId)
      ? await reads.application(account.id, applicationId)
      : undefined;
    if (!stored) throw notFound(`no 2FA application ${shownId(applicationId)} in this account`);
    return stored;
  }

  async storedTemplate(
    application: StoredApplication,
    messageId: string,
    reads: TfaReads = this.#store.tfa,
  ): Promise<StoredTemplate> {
    const stored = TFA_ID_PATTERN.test(messageId) ? await reads.template(application, messageId) : undefined;
    if (!stored) {
      throw notFound(
        `no message template ${shownId(messageId)} in 2FA application ${application.applicationId}`,
      );
    }
    return stored;
  }

  async list(account: Account): Promise<ApplicationDto[]> {
    return (await this.#store.tfa.applications(account.id)).map(toApplicationDto);
  }

  async create(account: Account, request: CreateApplicationRequest): Promise<ApplicationDto> {
    const fields = applicationForCreate(request);
    const stored = await this.#store.write((tx) =>
      tx.tfa.insertApplication(account.id, newKeyId(), fields, this.#now()),
    );
    return toApplicationDto(stored);
  }

  async get(account: Account, applicationId: string): Promise<ApplicationDto> {
    return toApplicationDto(await this.storedApplication(account, applicationId));
  }

  /** Reads, merges and writes in one write, so concurrent updates cannot lose each other's fields. */
  async update(
    account: Account,
    applicationId: string,
    request: UpdateApplicationRequest,
  ): Promise<ApplicationDto> {
    const updated = await this.#store.write(async (tx) => {
      const stored = await this.storedApplication(account, applicationId, tx.tfa);
      const fields = applicationAfterUpdate(stored, request);
      if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
      return tx.tfa.updateApplication(stored, fields.value, this.#now());
    });
    return toApplicationDto(updated);
  }

  async listTemplates(account: Account, applicationId: string): Promise<MessageTemplateDto[]> {
    const application = await this.storedApplication(account, applicationId);
    return (await this.#store.tfa.templates(application)).map(toTemplateDto);
  }

  async createTemplate(
    account: Account,
    applicationId: string,
    request: CreateTemplateRequest,
  ): Promise<MessageTemplateDto> {
    const created = await this.#store.write(async (tx) => {
      const application = await this.storedApplication(account, applicationId, tx.tfa);
      const fields = templateForCreate(request);
      return tx.tfa.insertTemplate(application, newKeyId(), fields, this.#now());
    });
    return toTemplateDto(created);
  }

  async getTemplate(account: Account, applicationId: string, messageId: string): Promise<MessageTemplateDto> {
    const application = await this.storedApplication(account, applicationId);
    return toTemplateDto(await this.storedTemplate(application, messageId));
  }

  async updateTemplate(
    account: Account,
    applicationId: string,
    messageId: string,
    request: UpdateTemplateRequest,
  ): Promise<MessageTemplateDto> {
    const updated = await this.#store.write(async (tx) => {
      const application = await this.storedApplication(account, applicationId, tx.tfa);
      const stored = await this.storedTemplate(application, messageId, tx.tfa);
      const fields = templateAfterUpdate(stored, request);
      if (!fields.ok) throw badRequest(INVALID_BODY, fields.errors);
      return tx.tfa.updateTemplate(stored, fields.value, this.#now());
    });
    return toTemplateDto(updated);
  }
}
