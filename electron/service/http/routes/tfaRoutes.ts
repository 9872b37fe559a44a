import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { sendPinQuerySchema, verificationsQuerySchema } from "../../tfa/schemas.ts";
import type { TfaSimulator } from "../../tfa/tfaSimulator.ts";
import { validationErrorsByPath } from "../../tfa/validation.ts";
import type { CallerGuard, RouteAccess } from "../callerGuard.ts";
import { routePath } from "../methodRoutes.ts";
import { type ErrorStatus, errorResponse } from "../openApiErrors.ts";
import { type DeclaredResponse, documented, jsonContent, OPTIONAL_BODY, pathParam } from "../routeSchemas.ts";
import { bodyErrors, commonErrors, serviceFailures } from "./commonErrors.ts";
import {
  application,
  applicationList,
  createApplicationRequest,
  createTemplateRequest,
  messageTemplate,
  messageTemplateList,
  pinVerification,
  resendPinRequest,
  sendPinRequest,
  smsPinResponse,
  updateApplicationRequest,
  updateTemplateRequest,
  verificationList,
  verifyPinRequest,
  voicePinResponse,
} from "./tfaSchemas.ts";

const TFA_APPLICATIONS_PATH = SERVICE_ROUTES.tfaApplications;
const TFA_APPLICATION_PATH = SERVICE_ROUTES.tfaApplication;
const TFA_TEMPLATES_PATH = SERVICE_ROUTES.tfaTemplates;
const TFA_TEMPLATE_PATH = SERVICE_ROUTES.tfaTemplate;
const TFA_VERIFICATIONS_PATH = SERVICE_ROUTES.tfaVerifications;
const TFA_PIN_PATH = SERVICE_ROUTES.tfaPin;

/** Application and template management: API keys need ALL (a TFA key is refused). */
const MANAGE = { tfaMethod: false };
/** The seven client-side methods a TFA key may call. */
const TFA_METHOD = { tfaMethod: true };

const id = (description: string) =>
  z.string().meta({ description, examples: ["0933F3BC087D2A617AC6DCB2EF5B8A61"] });
const appParams = z.object({ appId: id("The application's applicationId") });
const templateParams = z.object({
  appId: id("The application's applicationId"),
  msgId: id("The message template's messageId"),
});
const pinParams = z.object({ pinId: id("The pinId answered when the PIN was sent") });

const errors: Record<string, DeclaredResponse> = {
  400: errorResponse("400", "Invalid input; validationErrors names each field (nested ones by dotted path)"),
  401: errorResponse(
    "401",
    "Missing credentials, unknown API key, wrong Basic credentials, an unknown, ended or expired IBSSO token, or OAuth (not simulated)",
  ),
  403: errorResponse(
    "403",
    "The API key may not make this call (disabled, outside its validity window or allowedIPs, or a TFA key on a management route), or the 2FA application is disabled",
  ),
  404: errorResponse("404", "Unknown application, message template or PIN in the caller's account"),
  ...bodyErrors,
  429: commonErrors["429"],
};
const limited = errorResponse(
  "429",
  "A send limit or the verifyPinLimit of the application is reached, or too many failed or simultaneous sign-ins; see Retry-After",
);

/**
 * The refusals of each kind of operation: what its handler can answer, and for a method with a
 * body (every one but GET) what reading the body can. SEND counts against the application's send
 * or verify limits (429 for those too). Every operation also declares the service's own failures
 * (serviceFailures).
 */
const LIST: ErrorStatus[] = ["401", "403", "429"];
const READ_ONE: ErrorStatus[] = ["401", "403", "404", "429"];
const CREATE_APPLICATION: ErrorStatus[] = ["400", "401", "403", "413", "415", "429"];
const WRITE: ErrorStatus[] = ["400", "401", "403", "404", "413", "415", "429"];
const VERIFICATIONS: ErrorStatus[] = ["400", "401", "403", "404", "429"];

/** validationErrors names a nested field of a 2FA body by its dotted path (`configuration.pinAttempts`). */
const fieldNames = validationErrorsByPath;

const APP_OR_BASIC: { [scheme: string]: string[] }[] = [{ app: [] }, { basic: [] }, { ibsso: [] }];

/** An operation of the 2FA API: an API key or Basic credentials, its answer and its refusals. */
const tfaOperation = <const S extends object>(
  operation: S,
  answer: { description: string; schema: z.ZodType },
  refusals: ErrorStatus[],
  options: { limited?: true } = {},
) => ({
  tags: ["2FA"],
  security: APP_OR_BASIC,
  ...operation,
  response: {
    200: { description: answer.description, content: jsonContent(answer.schema) },
    ...Object.fromEntries(
      refusals.map((status) => [status, status === "429" && options.limited ? limited : errors[status]]),
    ),
    ...serviceFailures,
  },
});

/** The provider's 2FA v2 API, simulated locally: every message is captured, none leaves the machine. */
export function registerTfaRoutes(app: FastifyInstance, tfa: TfaSimulator, caller: CallerGuard): void {
  const { applications, pins } = tfa;
  // What a 2FA route answers before its query and body: the credentials (for the hot path, in the
  // same turn for a cached API key), then what its path names.
  const account = (request: FastifyRequest, access: RouteAccess) => {
    const called = caller(request, access);
    return called instanceof Promise ? called.then(({ account }) => account) : called.account;
  };
  const manager = (request: FastifyRequest) => account(request, MANAGE);
  const tfaCaller = (request: FastifyRequest) => account(request, TFA_METHOD);
  const applicationOf = async (request: FastifyRequest) => {
    const caller = await manager(request);
    return { caller, application: await applications.storedApplication(caller, pathParam(request, "appId")) };
  };
  const pinOf = async (request: FastifyRequest) => {
    const caller = await tfaCaller(request);
    await pins.pinOf(caller, pathParam(request, "pinId"));
    return caller;
  };

  routePath(app, TFA_APPLICATIONS_PATH, {
    get: documented(
      tfaOperation(
        {
          operationId: "listTfaApplications",
          summary: "The account's 2FA applications in creation order (API keys need ALL)",
        },
        { description: "The applications", schema: applicationList },
        LIST,
      ),
      { before: manager, handler: (_request, _reply, caller) => applications.list(caller), fieldNames },
    ),
    post: documented(
      tfaOperation(
        {
          operationId: "createTfaApplication",
          summary: "Create a 2FA application; configuration fields default as documented",
          body: createApplicationRequest,
        },
        { description: "The new application with every configuration field", schema: application },
        CREATE_APPLICATION,
      ),
      {
        before: manager,
        handler: (request, _reply, caller) => applications.create(caller, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, TFA_APPLICATION_PATH, {
    get: documented(
      tfaOperation(
        { operationId: "getTfaApplication", summary: "One 2FA application", params: appParams },
        { description: "The application", schema: application },
        READ_ONE,
      ),
      {
        before: manager,
        handler: (request, _reply, caller) => applications.get(caller, request.params.appId),
        fieldNames,
      },
    ),
    put: documented(
      tfaOperation(
        {
          operationId: "updateTfaApplication",
          summary: "Update an application: sent fields (configuration field by field) replace stored ones",
          params: appParams,
          body: updateApplicationRequest,
        },
        { description: "The application after the update", schema: application },
        WRITE,
      ),
      {
        before: applicationOf,
        handler: (request, _reply, { caller }) =>
          applications.update(caller, request.params.appId, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, TFA_TEMPLATES_PATH, {
    get: documented(
      tfaOperation(
        {
          operationId: "listTfaMessageTemplates",
          summary: "The application's message templates in creation order",
          params: appParams,
        },
        { description: "The templates", schema: messageTemplateList },
        READ_ONE,
      ),
      {
        before: manager,
        handler: (request, _reply, caller) => applications.listTemplates(caller, request.params.appId),
        fieldNames,
      },
    ),
    post: documented(
      tfaOperation(
        {
          operationId: "createTfaMessageTemplate",
          summary: "Create a message template; messageText must contain {{pin}}",
          params: appParams,
          body: createTemplateRequest,
        },
        { description: "The new template", schema: messageTemplate },
        WRITE,
      ),
      {
        before: applicationOf,
        handler: (request, _reply, { caller }) =>
          applications.createTemplate(caller, request.params.appId, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, TFA_TEMPLATE_PATH, {
    get: documented(
      tfaOperation(
        { operationId: "getTfaMessageTemplate", summary: "One message template", params: templateParams },
        { description: "The template", schema: messageTemplate },
        READ_ONE,
      ),
      {
        before: manager,
        handler: (request, _reply, caller) => {
          const { appId, msgId } = request.params;
          return applications.getTemplate(caller, appId, msgId);
        },
        fieldNames,
      },
    ),
    put: documented(
      tfaOperation(
        {
          operationId: "updateTfaMessageTemplate",
          summary: "Update a template: sent fields replace stored ones, null clears the optional ones",
          params: templateParams,
          body: updateTemplateRequest,
        },
        { description: "The template after the update", schema: messageTemplate },
        WRITE,
      ),
      {
        before: async (request: FastifyRequest) => {
          const { caller, application } = await applicationOf(request);
          await applications.storedTemplate(application, pathParam(request, "msgId"));
          return caller;
        },
        handler: (request, _reply, caller) => {
          const { appId, msgId } = request.params;
          return applications.updateTemplate(caller, appId, msgId, request.body);
        },
        fieldNames,
      },
    ),
  });

  routePath(app, TFA_VERIFICATIONS_PATH, {
    get: documented(
      tfaOperation(
        {
          operationId: "getTfaVerificationStatus",
          summary: "The application's PINs sent to a number, newest first (TFA keys allowed)",
          params: appParams,
          querystring: verificationsQuerySchema,
        },
        { description: "The verifications", schema: verificationList },
        VERIFICATIONS,
      ),
      {
        before: async (request: FastifyRequest) =>
          applications.storedApplication(await tfaCaller(request), pathParam(request, "appId")),
        handler: (request, _reply, application) => pins.verifications(application, request.query),
        fieldNames,
      },
    ),
  });
  routePath(app, TFA_PIN_PATH, {
    post: documented(
      tfaOperation(
        {
          operationId: "sendTfaPinOverSms",
          summary: "Send a new PIN over SMS (captured locally, never sent) (TFA keys allowed)",
          querystring: sendPinQuerySchema,
          body: sendPinRequest,
        },
        { description: "The PIN's id and the send status", schema: smsPinResponse },
        WRITE,
        { limited: true },
      ),
      {
        before: tfaCaller,
        handler: (request, _reply, caller) => pins.sendSms(caller, request.query, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, `${TFA_PIN_PATH}/voice`, {
    post: documented(
      tfaOperation(
        {
          operationId: "sendTfaPinOverVoice",
          summary: "Send a new PIN over voice (captured locally) (TFA keys allowed)",
          body: sendPinRequest,
        },
        { description: "The PIN's id and the call status", schema: voicePinResponse },
        WRITE,
        { limited: true },
      ),
      {
        before: tfaCaller,
        handler: (request, _reply, caller) => pins.sendVoice(caller, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/verify`, {
    post: documented(
      tfaOperation(
        {
          operationId: "verifyTfaPin",
          summary: "Verify a PIN (TFA keys allowed)",
          params: pinParams,
          body: verifyPinRequest,
        },
        { description: "The verification result", schema: pinVerification },
        WRITE,
        { limited: true },
      ),
      {
        before: pinOf,
        handler: (request, _reply, caller) => pins.verify(caller, request.params.pinId, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/resend`, {
    post: documented(
      tfaOperation(
        {
          operationId: "resendTfaPinOverSms",
          summary:
            "Send the same PIN again over SMS; counts against the send limits, keeps the expiry (TFA keys allowed)",
          params: pinParams,
          body: resendPinRequest,
          ...OPTIONAL_BODY,
        },
        { description: "The send status", schema: smsPinResponse },
        WRITE,
        { limited: true },
      ),
      {
        before: pinOf,
        handler: (request, _reply, caller) => pins.resendSms(caller, request.params.pinId, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/resend/voice`, {
    post: documented(
      tfaOperation(
        {
          operationId: "resendTfaPinOverVoice",
          summary: "Send the same PIN again over voice (TFA keys allowed)",
          params: pinParams,
          body: resendPinRequest,
          ...OPTIONAL_BODY,
        },
        { description: "The call status", schema: voicePinResponse },
        WRITE,
        { limited: true },
      ),
      {
        before: pinOf,
        handler: (request, _reply, caller) => pins.resendVoice(caller, request.params.pinId, request.body),
        fieldNames,
      },
    ),
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/status`, {
    get: documented(
      tfaOperation(
        {
          operationId: "getTfaPinStatus",
          summary:
            "A PIN's state: verified, attempts left, and TTL_EXPIRED or NO_MORE_PIN_ATTEMPTS (TFA keys allowed)",
          params: pinParams,
        },
        { description: "The PIN's state", schema: pinVerification },
        READ_ONE,
      ),
      {
        before: tfaCaller,
        handler: (request, _reply, caller) => pins.status(caller, request.params.pinId),
        fieldNames,
      },
    ),
  });
}
