import type { FastifyInstance } from "fastify";
import type { TfaSimulator } from "../../tfa/tfaSimulator.ts";
import type { CallerGuard, RouteAccess } from "../callerGuard.ts";
import { routePath } from "../methodRoutes.ts";

type AppParams = { appId: string };
type TemplateParams = { appId: string; msgId: string };
type PinParams = { pinId: string };

export const TFA_APPLICATIONS_PATH = "/2fa/2/applications";
export const TFA_APPLICATION_PATH = `${TFA_APPLICATIONS_PATH}/:appId`;
export const TFA_TEMPLATES_PATH = `${TFA_APPLICATION_PATH}/messages`;
export const TFA_TEMPLATE_PATH = `${TFA_TEMPLATES_PATH}/:msgId`;
export const TFA_VERIFICATIONS_PATH = `${TFA_APPLICATION_PATH}/verifications`;
export const TFA_PIN_PATH = "/2fa/2/pin";

/** Application and template management: API keys need ALL (a TFA key is refused). */
const MANAGE = { tfaMethod: false };
/** The seven client-side methods a TFA key may call. */
const TFA_METHOD = { tfaMethod: true };

/** The provider's 2FA v2 API, simulated locally: every message is captured, none leaves the machine. */
export function registerTfaRoutes(app: FastifyInstance, tfa: TfaSimulator, caller: CallerGuard): void {
  const { applications, pins } = tfa;
  const account = (request: Parameters<CallerGuard>[0], access: RouteAccess) => {
    const called = caller(request, access);
    return called instanceof Promise ? called.then(({ account }) => account) : called.account;
  };

  routePath(app, TFA_APPLICATIONS_PATH, {
    get: async (request) => applications.list(await account(request, MANAGE)),
    post: async (request) => applications.create(await account(request, MANAGE), request.body),
  });
  routePath(app, TFA_APPLICATION_PATH, {
    get: async (request) => {
      const { appId } = request.params as AppParams;
      return applications.get(await account(request, MANAGE), appId);
    },
    put: async (request) => {
      const { appId } = request.params as AppParams;
      return applications.update(await account(request, MANAGE), appId, request.body);
    },
  });
  routePath(app, TFA_TEMPLATES_PATH, {
    get: async (request) => {
      const { appId } = request.params as AppParams;
      return applications.listTemplates(await account(request, MANAGE), appId);
    },
    post: async (request) => {
      const { appId } = request.params as AppParams;
      return applications.createTemplate(await account(request, MANAGE), appId, request.body);
    },
  });
  routePath(app, TFA_TEMPLATE_PATH, {
    get: async (request) => {
      const { appId, msgId } = request.params as TemplateParams;
      return applications.getTemplate(await account(request, MANAGE), appId, msgId);
    },
    put: async (request) => {
      const { appId, msgId } = request.params as TemplateParams;
      return applications.updateTemplate(await account(request, MANAGE), appId, msgId, request.body);
    },
  });

  routePath(app, TFA_VERIFICATIONS_PATH, {
    get: async (request) => {
      const { appId } = request.params as AppParams;
      return pins.verifications(await account(request, TFA_METHOD), appId, request.query);
    },
  });
  routePath(app, TFA_PIN_PATH, {
    post: async (request) => pins.sendSms(await account(request, TFA_METHOD), request.query, request.body),
  });
  routePath(app, `${TFA_PIN_PATH}/voice`, {
    post: async (request) => pins.sendVoice(await account(request, TFA_METHOD), request.body),
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/verify`, {
    post: async (request) => {
      const { pinId } = request.params as PinParams;
      return pins.verify(await account(request, TFA_METHOD), pinId, request.body);
    },
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/resend`, {
    post: async (request) => {
      const { pinId } = request.params as PinParams;
      return pins.resendSms(await account(request, TFA_METHOD), pinId, request.body);
    },
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/resend/voice`, {
    post: async (request) => {
      const { pinId } = request.params as PinParams;
      return pins.resendVoice(await account(request, TFA_METHOD), pinId, request.body);
    },
  });
  routePath(app, `${TFA_PIN_PATH}/:pinId/status`, {
    get: async (request) => {
      const { pinId } = request.params as PinParams;
      return pins.status(await account(request, TFA_METHOD), pinId);
    },
  });
}
