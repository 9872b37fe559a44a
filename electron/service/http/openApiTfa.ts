import {
  CALL_STATUSES,
  CHANNELS,
  NC_STATUSES,
  PIN_ERRORS,
  PIN_STREAM_EVENTS,
  PIN_TYPES,
  SMS_STATUSES,
  TEMPLATE_LANGUAGES,
} from "../../../shared/tfa.ts";
import { QUERY_BOOLEAN_SPELLINGS } from "../domain/queryBoolean.ts";
import {
  createApplicationSchema,
  createTemplateSchema,
  resendPinSchema,
  sendPinSchema,
  updateApplicationSchema,
  updateTemplateSchema,
  verifyPinSchema,
} from "../tfa/schemas.ts";
import { BASIC_CHALLENGE, errorResponse } from "./openApiErrors.ts";
import { API_DATETIME, json, jsonSchemaOf, ref } from "./openApiParts.ts";
import { MAX_STREAMS_PER_ACCOUNT } from "./routes/localPinRoutes.ts";
import { MAX_UNSENT_BYTES } from "./slowClient.ts";

/**
 * The OpenAPI description of the local 2FA simulator (the provider's 2FA v2 routes) and of the
 * PIN inbox. Request bodies come from the zod schemas the service validates with.
 */

const ok = (description: string, schema: object) => ({ "200": { description, content: json(schema) } });
const body = (name: string, required = true) => ({ required, content: json(ref(name)) });

const errors = {
  "400": errorResponse(
    "400",
    "Invalid input; validationErrors names each field (nested ones by dotted path)",
  ),
  "401": errorResponse("401", "Missing credentials, unknown API key or wrong Basic credentials"),
  "403": errorResponse(
    "403",
    "The API key may not make this call (disabled, outside its validity window or allowedIPs, or a TFA key on a management route), or the 2FA application is disabled",
  ),
  "404": errorResponse("404", "Unknown application, message template or PIN in the caller's account"),
  "413": errorResponse("413", "Request body over 64 KiB"),
  "415": errorResponse("415", "Request body is not application/json"),
  "429": errorResponse(
    "429",
    "Too many failed sign-in attempts from this address, or too many sign-ins being checked at once; see Retry-After",
  ),
  "500": errorResponse("500", "The service failed; nothing was written"),
};
const limited = errorResponse(
  "429",
  "A send limit or the verifyPinLimit of the application is reached, or too many failed or simultaneous sign-ins; see Retry-After",
);

type Status = keyof typeof errors;
interface Refusals {
  statuses: readonly Status[];
  /** Counts against the application's send or verify limits (429 for those too). */
  limited?: true;
}

/**
 * The refusals of each kind of operation: what its handler can answer, and for a method with a
 * body (every one but GET) what reading the body can.
 */
const LIST: Refusals = { statuses: ["401", "403", "429", "500"] };
const READ_ONE: Refusals = { statuses: ["401", "403", "404", "429", "500"] };
const CREATE_APPLICATION: Refusals = { statuses: ["400", "401", "403", "413", "415", "429", "500"] };
const WRITE: Refusals = { statuses: ["400", "401", "403", "404", "413", "415", "429", "500"] };
const VERIFICATIONS: Refusals = { statuses: ["400", "401", "403", "404", "429", "500"] };
const SEND: Refusals = { ...WRITE, limited: true };

const localErrors = {
  "400": errorResponse("400", "Invalid query parameters"),
  "401": errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
  "403": errorResponse(
    "403",
    "An API key was used; the PIN inbox takes the account's Basic credentials only",
  ),
  "429": errorResponse(
    "429",
    "Too many failed sign-in attempts from this address, or too many sign-ins being checked at once; see Retry-After",
  ),
  "500": errorResponse("500", "The service failed"),
};

const appOrBasic = [{ app: [] }, { basic: [] }];
const basicOnly = [{ basic: [] }];
const TAGS = ["2FA"];

const idParameter = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string", examples: ["0933F3BC087D2A617AC6DCB2EF5B8A61"] },
});
const appId = idParameter("appId", "The application's applicationId");
const msgId = idParameter("msgId", "The message template's messageId");
const pinId = idParameter("pinId", "The pinId answered when the PIN was sent");

const durationText =
  "`{timeLength}{timeUnit}`; timeLength optional (1), unit ms, s, m, h or d; at most one year";
const limitText = "`{attempts}/{timeLength}{timeUnit}`; timeLength optional (1), unit ms, s, m, h or d";

export const tfaSchemas = {
  ApplicationConfiguration: {
    type: "object",
    required: [
      "pinAttempts",
      "allowMultiplePinVerifications",
      "pinTimeToLive",
      "verifyPinLimit",
      "sendPinPerApplicationLimit",
      "sendPinPerPhoneNumberLimit",
    ],
    additionalProperties: false,
    properties: {
      pinAttempts: { type: "integer", minimum: 1, default: 10 },
      allowMultiplePinVerifications: { type: "boolean", default: true },
      pinTimeToLive: { type: "string", default: "15m", description: durationText },
      verifyPinLimit: { type: "string", default: "1/3s", description: `Per PIN: ${limitText}` },
      sendPinPerApplicationLimit: { type: "string", default: "10000/1d", description: limitText },
      sendPinPerPhoneNumberLimit: {
        type: "string",
        default: "3/1d",
        description: `Per number: ${limitText}`,
      },
    },
  },
  Application: {
    type: "object",
    required: ["applicationId", "name", "configuration", "enabled"],
    additionalProperties: false,
    properties: {
      applicationId: { type: "string" },
      name: { type: "string" },
      configuration: ref("ApplicationConfiguration"),
      enabled: { type: "boolean" },
    },
  },
  ApplicationList: { type: "array", items: ref("Application") },
  CreateApplicationRequest: jsonSchemaOf(createApplicationSchema),
  UpdateApplicationRequest: jsonSchemaOf(updateApplicationSchema),
  MessageTemplate: {
    type: "object",
    required: [
      "messageId",
      "applicationId",
      "pinPlaceholder",
      "messageText",
      "pinLength",
      "pinType",
      "language",
      "speechRate",
    ],
    additionalProperties: false,
    properties: {
      messageId: { type: "string" },
      applicationId: { type: "string" },
      pinPlaceholder: { type: "string", const: "{{pin}}" },
      messageText: { type: "string" },
      pinLength: { type: "integer" },
      pinType: { type: "string", enum: [...PIN_TYPES] },
      language: { type: "string", enum: [...TEMPLATE_LANGUAGES] },
      senderId: { type: "string" },
      repeatDTMF: { type: "string" },
      speechRate: { type: "number" },
      voiceName: { type: "string" },
      regional: {
        type: "object",
        additionalProperties: false,
        properties: {
          indiaDlt: {
            type: "object",
            required: ["principalEntityId"],
            additionalProperties: false,
            properties: {
              contentTemplateId: { type: "string" },
              principalEntityId: { type: "string" },
              teleMarketerId: { type: "string" },
            },
          },
        },
      },
    },
  },
  MessageTemplateList: { type: "array", items: ref("MessageTemplate") },
  CreateMessageTemplateRequest: jsonSchemaOf(createTemplateSchema),
  UpdateMessageTemplateRequest: jsonSchemaOf(updateTemplateSchema),
  SendPinRequest: jsonSchemaOf(sendPinSchema),
  ResendPinRequest: jsonSchemaOf(resendPinSchema),
  VerifyPinRequest: jsonSchemaOf(verifyPinSchema),
  SmsPinResponse: {
    type: "object",
    required: ["pinId", "to", "smsStatus"],
    additionalProperties: false,
    properties: {
      pinId: { type: "string" },
      to: { type: "string", description: "The number, digits only" },
      ncStatus: { type: "string", enum: [...NC_STATUSES], description: "Only when ncNeeded is not false" },
      smsStatus: { type: "string", enum: [...SMS_STATUSES] },
    },
  },
  VoicePinResponse: {
    type: "object",
    required: ["pinId", "to", "callStatus"],
    additionalProperties: false,
    properties: {
      pinId: { type: "string" },
      to: { type: "string" },
      callStatus: { type: "string", enum: [...CALL_STATUSES] },
    },
  },
  PinVerification: {
    type: "object",
    required: ["pinId", "msisdn", "verified", "attemptsRemaining"],
    additionalProperties: false,
    properties: {
      pinId: { type: "string" },
      msisdn: { type: "string" },
      verified: { type: "boolean" },
      attemptsRemaining: { type: "integer", minimum: 0 },
      pinError: { type: "string", enum: [...PIN_ERRORS] },
    },
  },
  VerificationList: {
    type: "object",
    required: ["verifications"],
    additionalProperties: false,
    properties: {
      verifications: {
        type: "array",
        items: {
          type: "object",
          required: ["msisdn", "verified", "sentAt"],
          additionalProperties: false,
          properties: {
            msisdn: { type: "string" },
            verified: { type: "boolean" },
            verifiedAt: { type: "integer", description: "Epoch milliseconds; absent until verified" },
            sentAt: { type: "integer", description: "Epoch milliseconds of the PIN's first send" },
          },
        },
      },
    },
  },
  CapturedPin: {
    type: "object",
    required: [
      "pinId",
      "applicationId",
      "messageId",
      "to",
      "channel",
      "pin",
      "text",
      "sentAt",
      "expiresAt",
      "attemptsRemaining",
      "verified",
      "delivered",
      "status",
    ],
    additionalProperties: false,
    properties: {
      pinId: { type: "string" },
      applicationId: { type: "string" },
      applicationName: {
        type: "string",
        description: "The application's name when the message was listed or sent",
      },
      messageId: { type: "string" },
      to: { type: "string" },
      channel: { type: "string", enum: [...CHANNELS] },
      pin: { type: "string" },
      text: { type: "string" },
      sentAt: API_DATETIME,
      expiresAt: API_DATETIME,
      attemptsRemaining: { type: "integer", minimum: 0 },
      verified: { type: "boolean" },
      delivered: {
        type: "boolean",
        description:
          "Whether the message reached the phone: false for the failure test numbers (447700900001, 447700900002), whose messages are listed too",
      },
      status: {
        type: "string",
        enum: [...new Set([...SMS_STATUSES, ...CALL_STATUSES])],
        description: "The status the send answered: the smsStatus, or the callStatus of a voice PIN",
      },
    },
  },
  PinState: {
    type: "object",
    description: "A PIN's state after a verification changed it",
    required: ["pinId", "applicationId", "to", "attemptsRemaining", "verified"],
    additionalProperties: false,
    properties: {
      pinId: { type: "string" },
      applicationId: { type: "string" },
      to: { type: "string" },
      attemptsRemaining: { type: "integer", minimum: 0 },
      verified: { type: "boolean" },
    },
  },
  CapturedPinList: {
    type: "object",
    required: ["pins"],
    additionalProperties: false,
    properties: { pins: { type: "array", items: ref("CapturedPin") } },
  },
};

/** Any value is accepted: one that spells no boolean counts as absent (see domain/queryBoolean.ts). */
const booleanQuery = (name: string, description: string) => ({
  name,
  in: "query",
  description: `${description}. Read as ${QUERY_BOOLEAN_SPELLINGS}; any other value (empty, undefined, ...) counts as absent`,
  schema: { type: "string", examples: ["true", "false"] },
});
const inboxFilters = [
  {
    name: "to",
    in: "query",
    description:
      "Only messages to numbers containing these digits: a whole number or a part of one, written with spaces, +, -, dots, slashes or brackets if wished (a search: 4179 and +41 79 find 41793026731)",
    schema: { type: "string" },
  },
  {
    name: "applicationId",
    in: "query",
    description: "Only messages of this application",
    schema: { type: "string" },
  },
];

const tfaOperation = (operation: Record<string, unknown>, refusals: Refusals) => ({
  tags: TAGS,
  security: appOrBasic,
  ...operation,
  responses: {
    ...(operation.responses as object),
    ...Object.fromEntries(
      refusals.statuses.map((status) => [
        status,
        status === "429" && refusals.limited ? limited : errors[status],
      ]),
    ),
  },
});

export const tfaPaths = {
  "/2fa/2/applications": {
    get: tfaOperation(
      {
        operationId: "listTfaApplications",
        summary: "The account's 2FA applications in creation order (API keys need ALL)",
        responses: ok("The applications", ref("ApplicationList")),
      },
      LIST,
    ),
    post: tfaOperation(
      {
        operationId: "createTfaApplication",
        summary: "Create a 2FA application; configuration fields default as documented",
        requestBody: body("CreateApplicationRequest"),
        responses: ok("The new application with every configuration field", ref("Application")),
      },
      CREATE_APPLICATION,
    ),
  },
  "/2fa/2/applications/{appId}": {
    parameters: [appId],
    get: tfaOperation(
      {
        operationId: "getTfaApplication",
        summary: "One 2FA application",
        responses: ok("The application", ref("Application")),
      },
      READ_ONE,
    ),
    put: tfaOperation(
      {
        operationId: "updateTfaApplication",
        summary: "Update an application: sent fields (configuration field by field) replace stored ones",
        requestBody: body("UpdateApplicationRequest"),
        responses: ok("The application after the update", ref("Application")),
      },
      WRITE,
    ),
  },
  "/2fa/2/applications/{appId}/messages": {
    parameters: [appId],
    get: tfaOperation(
      {
        operationId: "listTfaMessageTemplates",
        summary: "The application's message templates in creation order",
        responses: ok("The templates", ref("MessageTemplateList")),
      },
      READ_ONE,
    ),
    post: tfaOperation(
      {
        operationId: "createTfaMessageTemplate",
        summary: "Create a message template; messageText must contain {{pin}}",
        requestBody: body("CreateMessageTemplateRequest"),
        responses: ok("The new template", ref("MessageTemplate")),
      },
      WRITE,
    ),
  },
  "/2fa/2/applications/{appId}/messages/{msgId}": {
    parameters: [appId, msgId],
    get: tfaOperation(
      {
        operationId: "getTfaMessageTemplate",
        summary: "One message template",
        responses: ok("The template", ref("MessageTemplate")),
      },
      READ_ONE,
    ),
    put: tfaOperation(
      {
        operationId: "updateTfaMessageTemplate",
        summary: "Update a template: sent fields replace stored ones, null clears the optional ones",
        requestBody: body("UpdateMessageTemplateRequest"),
        responses: ok("The template after the update", ref("MessageTemplate")),
      },
      WRITE,
    ),
  },
  "/2fa/2/applications/{appId}/verifications": {
    parameters: [appId],
    get: tfaOperation(
      {
        operationId: "getTfaVerificationStatus",
        summary: "The application's PINs sent to a number, newest first (TFA keys allowed)",
        parameters: [
          { name: "msisdn", in: "query", required: true, schema: { type: "string" } },
          booleanQuery("verified", "Only verified (true) or unverified (false) PINs"),
          booleanQuery("sent", "Only PINs whose message was sent (true) or not (false)"),
        ],
        responses: ok("The verifications", ref("VerificationList")),
      },
      VERIFICATIONS,
    ),
  },
  "/2fa/2/pin": {
    post: tfaOperation(
      {
        operationId: "sendTfaPinOverSms",
        summary: "Send a new PIN over SMS (captured locally, never sent) (TFA keys allowed)",
        parameters: [booleanQuery("ncNeeded", "Number Lookup first (default true): answers ncStatus")],
        requestBody: body("SendPinRequest"),
        responses: ok("The PIN's id and the send status", ref("SmsPinResponse")),
      },
      SEND,
    ),
  },
  "/2fa/2/pin/voice": {
    post: tfaOperation(
      {
        operationId: "sendTfaPinOverVoice",
        summary: "Send a new PIN over voice (captured locally) (TFA keys allowed)",
        requestBody: body("SendPinRequest"),
        responses: ok("The PIN's id and the call status", ref("VoicePinResponse")),
      },
      SEND,
    ),
  },
  "/2fa/2/pin/{pinId}/verify": {
    parameters: [pinId],
    post: tfaOperation(
      {
        operationId: "verifyTfaPin",
        summary: "Verify a PIN (TFA keys allowed)",
        requestBody: body("VerifyPinRequest"),
        responses: ok("The verification result", ref("PinVerification")),
      },
      SEND,
    ),
  },
  "/2fa/2/pin/{pinId}/resend": {
    parameters: [pinId],
    post: tfaOperation(
      {
        operationId: "resendTfaPinOverSms",
        summary:
          "Send the same PIN again over SMS; counts against the send limits, keeps the expiry (TFA keys allowed)",
        requestBody: body("ResendPinRequest", false),
        responses: ok("The send status", ref("SmsPinResponse")),
      },
      SEND,
    ),
  },
  "/2fa/2/pin/{pinId}/resend/voice": {
    parameters: [pinId],
    post: tfaOperation(
      {
        operationId: "resendTfaPinOverVoice",
        summary: "Send the same PIN again over voice (TFA keys allowed)",
        requestBody: body("ResendPinRequest", false),
        responses: ok("The call status", ref("VoicePinResponse")),
      },
      SEND,
    ),
  },
  "/2fa/2/pin/{pinId}/status": {
    parameters: [pinId],
    get: tfaOperation(
      {
        operationId: "getTfaPinStatus",
        summary:
          "A PIN's state: verified, attempts left, and TTL_EXPIRED or NO_MORE_PIN_ATTEMPTS (TFA keys allowed)",
        responses: ok("The PIN's state", ref("PinVerification")),
      },
      READ_ONE,
    ),
  },
  "/local/1/pins": {
    get: {
      tags: ["PIN inbox"],
      operationId: "listCapturedPins",
      summary:
        "Every message the 2FA simulator sent, of the caller's account and its sub-accounts, newest first",
      security: basicOnly,
      parameters: [
        ...inboxFilters,
        {
          name: "limit",
          in: "query",
          description: "At most this many messages (1–1000, default 1000)",
          schema: { type: "string", pattern: "^\\d{1,4}$" },
        },
      ],
      responses: { ...ok("The captured messages", ref("CapturedPinList")), ...localErrors },
    },
  },
  "/local/1/pins/stream": {
    get: {
      tags: ["PIN inbox"],
      operationId: "streamCapturedPins",
      summary: `Server-sent events: \`${PIN_STREAM_EVENTS.captured}\` (a CapturedPin) for each message sent, \`${PIN_STREAM_EVENTS.state}\` (pinId, applicationId, to, attemptsRemaining, verified) when a verification changes a PIN; a comment every 15 s. A client that stops reading is disconnected once ${MAX_UNSENT_BYTES / 1024} KiB wait unsent for it (reconnect, and list what was missed); an account holds at most ${MAX_STREAMS_PER_ACCOUNT} open streams`,
      security: basicOnly,
      parameters: inboxFilters,
      responses: {
        "200": {
          description: "An endless event stream",
          content: {
            "text/event-stream": {
              schema: { type: "string" },
              // OpenAPI 3.1 cannot describe the events of a stream; this names each event's data.
              "x-events": {
                [PIN_STREAM_EVENTS.captured]: ref("CapturedPin"),
                [PIN_STREAM_EVENTS.state]: ref("PinState"),
              },
            },
          },
        },
        ...localErrors,
        "429": errorResponse(
          "429",
          `Too many failed sign-in attempts from this address, too many sign-ins being checked at once, or the account already holds ${MAX_STREAMS_PER_ACCOUNT} open streams; see Retry-After`,
        ),
      },
    },
  },
};
