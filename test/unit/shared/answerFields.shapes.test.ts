import assert from "node:assert/strict";
import { test } from "node:test";
import type { z } from "zod";
import { accountAnswerSchemas } from "../../../shared/accountAnswers.ts";
import { apiKeyAnswerSchemas } from "../../../shared/apiKeyAnswers.ts";
import { auditAnswerSchemas } from "../../../shared/auditAnswers.ts";
import { errorBodySchema } from "../../../shared/errorBody.ts";
import { pinAnswerSchemas } from "../../../shared/pinAnswers.ts";
import { syncAnswerSchemas } from "../../../shared/syncAnswers.ts";
import { tfaPinAnswerSchemas } from "../../../shared/tfaPinAnswers.ts";

/**
 * Each answer shape is one field list for both sides of the HTTP boundary: the service declares it
 * strict (an added field is outside its contract), the client checks it lenient (a newer service
 * may add a field, which is dropped) and still refuses a field of the wrong type.
 */

const HEX = "0123456789ABCDEF0123456789ABCDEF";
const TIME = "2026-01-31T13:45:00.000+0000";
const counts = {
  allowed: 3,
  refused: { disabled: 0, "not-yet-valid": 0, expired: 1, "address-not-allowed": 0, "tfa-only": 0 },
};
const apiKey = {
  name: "billing",
  key: HEX,
  publicApiKey: `${HEX}-9f0c1e52-6a4e-4f0e-8a43-0b0a6b0f7e11`,
  accountKey: HEX,
  permissions: ["ALL"],
  validTo: TIME,
  enabled: true,
};
const pin = {
  pinId: "p1",
  accountKey: HEX,
  applicationId: HEX,
  messageId: HEX,
  to: "447700900000",
  channel: "SMS",
  pin: "1234",
  text: "Your PIN is 1234",
  sentAt: TIME,
  expiresAt: TIME,
  attemptsRemaining: 3,
  verified: false,
  delivered: true,
  status: "MESSAGE_SENT",
  ncStatus: "NC_DESTINATION_REACHABLE",
};
const syncLink = {
  id: 1,
  accountKey: HEX,
  remote: { baseUrl: "https://remote.example", username: "admin", accountKey: HEX },
  intervalSeconds: 300,
  state: "idle",
  pausedReason: null,
  progress: null,
  lastAttemptAt: TIME,
  lastSuccessAt: null,
  lastError: null,
  nextRunAt: TIME,
  pending: 0,
  failed: 0,
  conflicts: 0,
  remoteMissing: 0,
  linkedKeys: 2,
  recentRuns: [{ startedAt: TIME, endedAt: TIME, pulled: 2, pushed: 0, conflicts: 0, error: null }],
};

const auditEntry = {
  time: TIME,
  accountKey: HEX,
  actor: "admin",
  channel: "desktop",
  action: "update",
  reason: null,
  key: HEX,
  changes: { name: { old: "a", new: "b" }, validTo: { old: null, new: TIME } },
  address: "127.0.0.1",
};

type Side = (strict: boolean) => z.ZodType;
/** Each shape: its schema on either side, an answer the service gives, and a field to give a wrong type. */
const shapes: { name: string; of: Side; answer: Record<string, unknown>; wrong: [string, unknown] }[] = [
  {
    name: "ApiKey",
    of: (strict) => apiKeyAnswerSchemas(strict).apiKey,
    answer: apiKey,
    wrong: ["enabled", "yes"],
  },
  {
    name: "ApiKeyWithExtras",
    of: (strict) => apiKeyAnswerSchemas(strict).apiKeyWithExtras,
    answer: {
      ...apiKey,
      createdAt: TIME,
      usage: {
        lastUsedAt: TIME,
        lastUsedFrom: "127.0.0.1",
        lastRefusedAt: null,
        lastRefusedFrom: null,
        total: counts,
        last24Hours: counts,
      },
    },
    wrong: ["permissions", "ALL"],
  },
  {
    name: "ApiKeyCount",
    of: (strict) => apiKeyAnswerSchemas(strict).apiKeyCount,
    answer: { count: 2 },
    wrong: ["count", "2"],
  },
  {
    name: "KeyUsageSeries",
    of: (strict) => apiKeyAnswerSchemas(strict).keyUsageSeries,
    answer: {
      hours: Array.from({ length: 48 }, () => ({ start: TIME, ...counts })),
      days: Array.from({ length: 30 }, () => ({ start: TIME, ...counts })),
    },
    wrong: ["hours", {}],
  },
  {
    name: "CapturedPin",
    of: (strict) => pinAnswerSchemas(strict).capturedPin,
    answer: pin,
    wrong: ["verified", 0],
  },
  {
    name: "PinState",
    of: (strict) => pinAnswerSchemas(strict).pinState,
    answer: { pinId: "p1", applicationId: HEX, to: "447700900000", attemptsRemaining: 2, verified: true },
    wrong: ["attemptsRemaining", "2"],
  },
  {
    name: "LocalAccountList",
    of: (strict) => accountAnswerSchemas(strict).accountList,
    answer: { accounts: [{ accountKey: HEX, username: "admin", parentAccountKey: null }] },
    wrong: ["accounts", { accountKey: HEX }],
  },
  {
    name: "ApiError",
    of: errorBodySchema,
    answer: {
      requestError: {
        serviceException: { messageId: "BAD_REQUEST", text: "bad", validationErrors: { name: ["too long"] } },
      },
    },
    wrong: ["requestError", "bad"],
  },
  {
    name: "SyncLink",
    of: (strict) => syncAnswerSchemas(strict).syncLink,
    answer: syncLink,
    wrong: ["state", 1],
  },
  {
    name: "SyncKey",
    of: (strict) => syncAnswerSchemas(strict).syncKey,
    answer: {
      key: HEX,
      name: "billing",
      remoteKey: null,
      state: "conflict",
      conflicts: [
        {
          field: "name",
          mine: "a",
          theirs: "b",
          mineChange: { by: "owner", at: TIME },
          theirsChange: { seenAt: TIME, by: null, at: null },
        },
      ],
      pendingFields: ["enabled"],
      error: null,
    },
    wrong: ["pendingFields", ["colour"]],
  },
  {
    name: "SyncOutboxEntry",
    of: (strict) => syncAnswerSchemas(strict).syncOutboxEntry,
    answer: {
      id: 4,
      key: HEX,
      kind: "update",
      fields: ["name"],
      heldFields: [],
      attempts: 1,
      failed: false,
      lastError: null,
      createdAt: TIME,
    },
    wrong: ["failed", null],
  },
  {
    name: "LocalOnlyKeyPage",
    of: (strict) => syncAnswerSchemas(strict).localOnlyKeyPage,
    answer: { count: 1, keys: [{ key: HEX, name: "old", enabled: true }], nextCursor: null },
    wrong: ["count", -0.5],
  },
  {
    name: "AuditEntry",
    of: (strict) => auditAnswerSchemas(strict).auditEntry,
    answer: auditEntry,
    wrong: ["changes", { name: "b" }],
  },
  {
    name: "AuditPage",
    of: (strict) => auditAnswerSchemas(strict).auditPage,
    answer: { entries: [auditEntry], nextCursor: "c1" },
    wrong: ["nextCursor", 1],
  },
  {
    name: "SmsPinResponse",
    of: (strict) => tfaPinAnswerSchemas(strict).smsPinResponse,
    answer: {
      pinId: "p1",
      to: "447700900000",
      ncStatus: "NC_DESTINATION_REACHABLE",
      smsStatus: "MESSAGE_SENT",
    },
    wrong: ["smsStatus", 1],
  },
  {
    name: "VoicePinResponse",
    of: (strict) => tfaPinAnswerSchemas(strict).voicePinResponse,
    answer: { pinId: "p1", to: "447700900000", callStatus: "PENDING_ACCEPTED" },
    wrong: ["to", 447700900000],
  },
  {
    name: "PinVerification",
    of: (strict) => tfaPinAnswerSchemas(strict).pinVerification,
    answer: {
      pinId: "p1",
      msisdn: "447700900000",
      verified: false,
      attemptsRemaining: 2,
      pinError: "WRONG_PIN",
    },
    wrong: ["verified", "false"],
  },
  {
    name: "VerificationList",
    of: (strict) => tfaPinAnswerSchemas(strict).verificationList,
    answer: { verifications: [{ msisdn: "447700900000", verified: true, verifiedAt: 2, sentAt: 1 }] },
    wrong: ["verifications", [{ msisdn: "447700900000", verified: "yes", sentAt: 1 }]],
  },
];

test("each answer shape: both sides take the service's answer; an added field is refused strict and dropped lenient; a wrong type is refused on both", () => {
  for (const { name, of, answer, wrong } of shapes) {
    const strict = of(true);
    const lenient = of(false);
    assert.equal(strict.safeParse(answer).success, true, `${name}: the service's answer, strict`);
    assert.equal(lenient.safeParse(answer).success, true, `${name}: the service's answer, lenient`);

    const added = { ...answer, addedByANewerService: 1 };
    assert.equal(strict.safeParse(added).success, false, `${name}: an added field, strict`);
    const taken = lenient.safeParse(added);
    assert.equal(taken.success, true, `${name}: an added field, lenient`);
    assert.equal(
      "addedByANewerService" in (taken.data as object),
      false,
      `${name}: the added field is dropped`,
    );

    const [field, value] = wrong;
    const wrongType = { ...answer, [field]: value };
    assert.equal(strict.safeParse(wrongType).success, false, `${name}: ${field} of a wrong type, strict`);
    assert.equal(lenient.safeParse(wrongType).success, false, `${name}: ${field} of a wrong type, lenient`);
  }
});

test("where the spec leaves a format open the client takes another service's spelling that the service's own contract refuses", () => {
  const remoteKey = { ...apiKey, key: "key-7", accountKey: "acc-1", validTo: "2026-01-31T13:45:00Z" };
  assert.equal(apiKeyAnswerSchemas(true).apiKey.safeParse(remoteKey).success, false);
  assert.equal(apiKeyAnswerSchemas(false).apiKey.safeParse(remoteKey).success, true);

  // An older service leaves out delivered, status, ncStatus and accountKey; a newer one may answer
  // a status unknown here.
  const { delivered: _, status: __, ncStatus: ___, accountKey: ____, ...olderPin } = pin;
  assert.equal(pinAnswerSchemas(true).capturedPin.safeParse(olderPin).success, false);
  assert.equal(pinAnswerSchemas(false).capturedPin.safeParse(olderPin).success, true);
  const newerPin = pinAnswerSchemas(false).capturedPin.parse({ ...pin, status: "SOMETHING_NEW" });
  assert.equal(newerPin.status, undefined);

  // A list that does not page leaves nextCursor out: the client has the whole list.
  const answers = apiKeyAnswerSchemas(false);
  assert.equal(answers.apiKeyPage(answers.apiKeyWithExtras).safeParse({ apiKeys: [apiKey] }).success, true);
  const own = apiKeyAnswerSchemas(true);
  assert.equal(own.apiKeyPage(own.apiKey).safeParse({ apiKeys: [apiKey] }).success, false);

  // An audit entry in another spelling of the time, and a change with a field this client does
  // not know (dropped).
  const otherEntry = {
    ...auditEntry,
    time: "2026-01-31T13:45:00Z",
    changes: { name: { old: "a", new: "b", by: 1 } },
  };
  assert.equal(auditAnswerSchemas(true).auditEntry.safeParse(otherEntry).success, false);
  assert.deepEqual(auditAnswerSchemas(false).auditEntry.parse(otherEntry).changes, {
    name: { old: "a", new: "b" },
  });

  // The client refuses an account list without the caller's own account.
  assert.equal(accountAnswerSchemas(false).accountList.safeParse({ accounts: [] }).success, false);
});
