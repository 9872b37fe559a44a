import { z } from "zod";
import { SERVICE_ROUTES, servicePath } from "../../shared/servicePaths.ts";
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

const applicationsPath = SERVICE_ROUTES.tfaApplications;
const applicationPath = (appId: string) => servicePath(SERVICE_ROUTES.tfaApplication, { appId });
const templatesPath = (appId: string) => servicePath(SERVICE_ROUTES.tfaTemplates, { appId });
const templatePath = (appId: string, msgId: string) =>
  servicePath(SERVICE_ROUTES.tfaTemplate, { appId, msgId });

export class TfaClient {
  readonly #client: KeyServiceClient;

  constructor(client: KeyServiceClient) {
    this.#client = client;
  }

  async applications(): Promise<ApplicationDto[]> {
    return this.#client.requestJson(applicationsPath, z.array(applicationSchema));
  }

  async createApplication(request: CreateApplicationRequest): Promise<ApplicationDto> {
    return this.#client.requestJson(applicationsPath, applicationSchema, {
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
