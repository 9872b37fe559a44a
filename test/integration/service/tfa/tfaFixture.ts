import assert from "node:assert/strict";
import type { ApiResponse } from "../../../harness/keyServiceProcess.ts";
import { assertOk, type Service } from "../serviceFixture.ts";

/** Helpers for the 2FA simulator's integration tests: one caller's view of the 2FA v2 API. */

export const TFA_ID_PATTERN = /^[0-9A-F]{32}$/;
export const API_DATETIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

export type Json = Record<string, unknown>;

export interface CapturedPin {
  pinId: string;
  applicationId: string;
  messageId: string;
  to: string;
  channel: "SMS" | "VOICE";
  pin: string;
  text: string;
  sentAt: string;
  expiresAt: string;
  attemptsRemaining: number;
  verified: boolean;
  delivered: boolean;
  status: string;
  accountKey: string;
  /** An SMS's Number Lookup status (absent for a voice PIN). */
  ncStatus?: string;
}

export interface TfaCaller {
  readonly authorization: string;
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** POST /2fa/2/applications (200 asserted); returns the applicationId. */
  createApplication(body?: Json): Promise<string>;
  /** POST .../messages (200 asserted); returns the messageId. */
  createTemplate(applicationId: string, body?: Json): Promise<string>;
  /** POST /2fa/2/pin (200 asserted); returns the answer. */
  sendSms(body: Json, query?: string): Promise<Json & { pinId: string }>;
  send(body: Json, query?: string): Promise<ApiResponse>;
  verify(pinId: string, pin: string): Promise<ApiResponse>;
  status(pinId: string): Promise<ApiResponse>;
  /** A new application with one NUMERIC template; returns both ids. */
  setUp(configuration?: Json, template?: Json): Promise<{ applicationId: string; messageId: string }>;
}

export function tfaCaller(service: Service, authorization: string): TfaCaller {
  const call = (method: string, path: string, body?: unknown) =>
    service.call({ method, path, authorization, ...(body !== undefined && { body }) });
  const caller: TfaCaller = {
    authorization,
    call,
    async createApplication(body = { name: "login" }) {
      const app = assertOk<Json>(await call("POST", "/2fa/2/applications", body));
      assert.match(String(app.applicationId), TFA_ID_PATTERN);
      return app.applicationId as string;
    },
    async createTemplate(applicationId, body = { messageText: "Your code is {{pin}}", pinType: "NUMERIC" }) {
      const template = assertOk<Json>(
        await call("POST", `/2fa/2/applications/${applicationId}/messages`, body),
      );
      assert.match(String(template.messageId), TFA_ID_PATTERN);
      return template.messageId as string;
    },
    send: (body, query = "") => call("POST", `/2fa/2/pin${query}`, body),
    async sendSms(body, query = "") {
      return assertOk<Json & { pinId: string }>(await caller.send(body, query));
    },
    verify: (pinId, pin) => call("POST", `/2fa/2/pin/${pinId}/verify`, { pin }),
    status: (pinId) => call("GET", `/2fa/2/pin/${pinId}/status`),
    async setUp(configuration, template) {
      const applicationId = await caller.createApplication({
        name: "login",
        ...(configuration && { configuration }),
      });
      const messageId = await caller.createTemplate(applicationId, template);
      return { applicationId, messageId };
    },
  };
  return caller;
}

/** An API key with permissions ALL in the account, made through the management API. */
export async function allKeyAuthorization(service: Service, username: string): Promise<string> {
  const key = await service.createKey(username, { name: "2fa tests", permissions: ["ALL"] });
  return `App ${key.publicApiKey}`;
}

/** GET /local/1/pins with the account's Basic credentials (200 asserted); returns the pins. */
export async function inbox(service: Service, username: string, query = ""): Promise<CapturedPin[]> {
  const res = await service.call({ path: `/local/1/pins${query}`, authorization: service.auth(username) });
  const body = assertOk<{ pins: CapturedPin[] }>(res);
  assert.deepEqual(Object.keys(body), ["pins"]);
  return body.pins;
}

/** The captured message of a PIN (its newest one): how a test reads the PIN a phone would have got. */
export async function capturedPin(service: Service, username: string, pinId: string): Promise<CapturedPin> {
  const found = (await inbox(service, username)).find((pin) => pin.pinId === pinId);
  assert.ok(found, `PIN ${pinId} was not captured`);
  return found;
}

/** A PIN of the same type and length that is certainly not `pin`. */
export function wrongPin(pin: string): string {
  const last = pin.at(-1) as string;
  return pin.slice(0, -1) + (last === "0" ? "1" : "0");
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
