import { z } from "zod";
import type { ApplicationDto, MessageTemplateDto } from "../../shared/tfa.ts";
import {
  type CreateApplicationRequest,
  type CreateTemplateRequest,
  tfaAnswerSchemas,
  type UpdateApplicationRequest,
  type UpdateTemplateRequest,
} from "../../shared/tfaSchemas.ts";
import type { KeyServiceClient } from "./keyServiceClient.ts";

/**
 * The client of the 2FA API's applications and message templates (`/2fa/2/applications...`, the
 * provider's routes, which the embedded service simulates), over the same transport as every other
 * call (KeyServiceClient: Basic credentials, one error shape, ServiceCallFailure). The routes act in the
 * credentials' own account. Every answer is checked with the schemas the service declares (shared/tfaSchemas.ts) before it is used.
 */

/** The service's answers, checked leniently: a newer service may add a field. */
const { application: applicationSchema, messageTemplate: messageTemplateSchema } = tfaAnswerSchemas(false);

export const TFA_APPLICATIONS_PATH = "/2fa/2/applications";
const applicationPath = (applicationId: string) =>
  `${TFA_APPLICATIONS_PATH}/${encodeURIComponent(applicationId)}`;
const templatesPath = (applicationId: string) => `${applicationPath(applicationId)}/messages`;
const templatePath = (applicationId: string, messageId: string) =>
  `${templatesPath(applicationId)}/${encodeURIComponent(messageId)}`;

export class TfaClient {
  readonly #client: KeyServiceClient;

  constructor(client: KeyServiceClient) {
    this.#client = client;
  }

  async applications(): Promise<ApplicationDto[]> {
    return this.#client.requestJson(TFA_APPLICATIONS_PATH, z.array(applicationSchema));
  }

  async createApplication(request: CreateApplicationRequest): Promise<ApplicationDto> {
    return this.#client.requestJson(TFA_APPLICATIONS_PATH, applicationSchema, {
      method: "POST",
      body: request,
    });
  }

  async updateApplication(applicationId: string, request: UpdateApplicationRequest): Promise<ApplicationDto> {
    return this.#client.requestJson(applicationPath(applicationId), applicationSchema, {
      method: "PUT",
      body: request,
    });
  }

  async templates(applicationId: string): Promise<MessageTemplateDto[]> {
    return this.#client.requestJson(templatesPath(applicationId), z.array(messageTemplateSchema));
  }

  async createTemplate(applicationId: string, request: CreateTemplateRequest): Promise<MessageTemplateDto> {
    return this.#client.requestJson(templatesPath(applicationId), messageTemplateSchema, {
      method: "POST",
      body: request,
    });
  }

  async updateTemplate(
    applicationId: string,
    messageId: string,
    request: UpdateTemplateRequest,
  ): Promise<MessageTemplateDto> {
    return this.#client.requestJson(templatePath(applicationId, messageId), messageTemplateSchema, {
      method: "PUT",
      body: request,
    });
  }
}
