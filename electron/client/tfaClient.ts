import { z } from "zod";
import { ANY_ID_PATTERN } from "../../shared/apiKeys.ts";
import {
  type ApplicationDto,
  type MessageTemplateDto,
  PIN_TYPES,
  TEMPLATE_LANGUAGES,
} from "../../shared/tfa.ts";
import type {
  CreateApplicationRequest,
  CreateTemplateRequest,
  UpdateApplicationRequest,
  UpdateTemplateRequest,
} from "../../shared/tfaSchemas.ts";
import type { KeyServiceClient } from "./keyServiceClient.ts";

/**
 * The client of the 2FA API's applications and message templates (`/2fa/2/applications...`, the
 * provider's routes, which the embedded service simulates), over the same transport as every other
 * call (KeyServiceClient: Basic credentials, one error shape, ServiceCallFailure). The routes act in the
 * credentials' own account. Every answer is checked with the schemas below before it is used.
 */

const id = z.string().regex(ANY_ID_PATTERN);

export const applicationSchema = z.object({
  applicationId: id,
  name: z.string(),
  configuration: z.object({
    pinAttempts: z.number().int(),
    allowMultiplePinVerifications: z.boolean(),
    pinTimeToLive: z.string(),
    verifyPinLimit: z.string(),
    sendPinPerApplicationLimit: z.string(),
    sendPinPerPhoneNumberLimit: z.string(),
  }),
  enabled: z.boolean(),
});

export const messageTemplateSchema = z.object({
  messageId: id,
  applicationId: id,
  pinPlaceholder: z.string(),
  messageText: z.string(),
  pinLength: z.number().int(),
  pinType: z.enum(PIN_TYPES),
  language: z.enum(TEMPLATE_LANGUAGES),
  senderId: z.string().optional(),
  repeatDTMF: z.string().optional(),
  speechRate: z.number(),
  voiceName: z.string().optional(),
  regional: z
    .object({
      indiaDlt: z
        .object({
          contentTemplateId: z.string().optional(),
          principalEntityId: z.string(),
          teleMarketerId: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});

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
