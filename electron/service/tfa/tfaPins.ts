import { formatApiDateTime } from "../../../shared/datetime.ts";
import type {
  ApplicationConfigurationDto,
  CapturedPinDto,
  Channel,
  PinVerificationDto,
  SmsPinResponseDto,
  VerificationListDto,
  VoicePinResponseDto,
} from "../../../shared/tfa.ts";
import type { Account } from "../domain/accounts.ts";
import { newKeyId } from "../domain/identifiers.ts";
import type { PinRecord, PinStatus, StoredApplication } from "../domain/tfaRecords.ts";
import { ApiError, badRequest, forbidden, notFound } from "../errors.ts";
import { ReadThroughCache } from "../store/readThroughCache.ts";
import type { CacheLookups, Store, TfaPinReads, TfaPinWrites, TfaReads } from "../store/store.ts";
import { limitsOf } from "./applicationRules.ts";
import { windowDecision } from "./limits.ts";
import { renderMessage } from "./messageText.ts";
import { normalizeMsisdn } from "./phoneNumbers.ts";
import type { PinEvent, PinEvents } from "./pinEvents.ts";
import { generatePin, type RandomIndex } from "./pinGenerator.ts";
import {
  decideVerification,
  pinMatches,
  resendRefusal,
  statusPinError,
  type VerifyDecision,
} from "./pinRules.ts";
import type {
  ResendPinRequest,
  SendPinQuery,
  SendPinRequest,
  VerificationsQuery,
  VerifyPinRequest,
} from "./schemas.ts";
import { deliveryOf, deliveryOutcome } from "./testNumbers.ts";
import { shownId, TFA_ID_PATTERN, type TfaApplications } from "./tfaApplications.ts";
import { takeVerifyCall } from "./verifyCallLimit.ts";

function tooManyRequests(text: string, retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError("TOO_MANY_REQUESTS", `${text}; try again in ${seconds} s`, undefined, {
    "retry-after": String(seconds),
  });
}

/** The inbox entry of a message just sent (one a test number kept from the phone included). */
function capturedEvent(
  account: Account,
  message: Omit<
    CapturedPinDto,
    "accountKey" | "sentAt" | "expiresAt" | "delivered" | "status" | "ncStatus"
  > & {
    sentAt: number;
    expiresAt: number;
  },
): PinEvent {
  const pin = {
    accountKey: account.accountKey,
    ...message,
    ...deliveryOf(message.to, message.channel),
    sentAt: formatApiDateTime(message.sentAt),
    expiresAt: formatApiDateTime(message.expiresAt),
  };
  return { type: "captured", accountId: account.id, pin };
}

function disabledError(applicationId: string): ApiError {
  return forbidden(
    `the 2FA application ${applicationId} is disabled; enable it (PUT /2fa/2/applications/${applicationId} with "enabled": true) to send PINs`,
  );
}

interface SendResult {
  pinId: string;
  msisdn: string;
  outcome: ReturnType<typeof deliveryOutcome>;
  /** Told to the PIN inbox once the write is committed. */
  event?: PinEvent;
}

export interface TfaPinsOptions {
  now?: () => number;
  randomIndex?: RandomIndex;
  /** Told of every message sent (and captured), once its write committed (the metrics). */
  onPinSent?: (channel: Channel, kind: "send" | "resend") => void;
  /** Where the PIN status cache counts its hits and misses (the metrics). */
  statusLookups?: CacheLookups;
}

/** Sending, resending and verifying PINs, for a caller acting in its own account. */
export class TfaPins {
  readonly #applications: TfaApplications;
  readonly #store: Store;
  /**
   * PIN status is the hot path of apps under test: served from memory. This process's verify
   * writes drop a PIN's entry, so does the change feed for another replica's; another process's
   * commits on SQLite drop them all (the feed's generation).
   */
  readonly #statusCache: ReadThroughCache<PinStatus>;
  readonly #events: PinEvents;
  readonly #now: () => number;
  readonly #randomIndex: RandomIndex | undefined;
  readonly #onPinSent: TfaPinsOptions["onPinSent"];

  constructor(applications: TfaApplications, store: Store, events: PinEvents, options: TfaPinsOptions = {}) {
    this.#applications = applications;
    this.#store = store;
    this.#statusCache = new ReadThroughCache(store.changes, { capacity: 100_000 }, options.statusLookups);
    store.changes.onPinChange((changedPinId) => this.#statusCache.delete(changedPinId));
    this.#events = events;
    this.#now = options.now ?? Date.now;
    this.#randomIndex = options.randomIndex;
    this.#onPinSent = options.onPinSent;
  }

  async #record(pins: TfaPinReads, account: Account, pinId: string): Promise<PinRecord> {
    const record = TFA_ID_PATTERN.test(pinId) ? await pins.record(pinId) : undefined;
    if (!record || record.accountId !== account.id)
      throw notFound(`no PIN ${shownId(pinId)} in this account`);
    return record;
  }

  /** sendPinPerApplicationLimit, then sendPinPerPhoneNumberLimit: 429 when one more message would exceed one. */
  async #checkSendLimits(
    pins: TfaPinWrites,
    application: { id: number; applicationId: string; configuration: ApplicationConfigurationDto },
    msisdn: string,
    now: number,
  ): Promise<void> {
    const limits = limitsOf(application.configuration);
    const check = async (
      name: "sendPinPerApplicationLimit" | "sendPinPerPhoneNumberLimit",
      nthNewest: (attempts: number) => Promise<number | undefined>,
      scope: string,
    ) => {
      const limit = limits[name];
      const decision = windowDecision(limit, await nthNewest(limit.attempts), now);
      if (!decision.allowed) {
        throw tooManyRequests(
          `${name} (${application.configuration[name]}) of 2FA application ${application.applicationId} reached ${scope}`,
          decision.retryAfterMs,
        );
      }
    };
    await check(
      "sendPinPerApplicationLimit",
      (n) => pins.nthNewestSend(application.id, n),
      "by the application",
    );
    await check(
      "sendPinPerPhoneNumberLimit",
      (n) => pins.nthNewestSendTo(application.id, msisdn, n),
      `for messages to ${msisdn}`,
    );
  }

  /**
   * Runs a send or resend as one durable write (the send limits' reads and the new send in the
   * same write), then tells the inbox what was captured.
   */
  async #committed(
    channel: Channel,
    kind: "send" | "resend",
    work: (tx: { tfa: TfaReads; tfaPins: TfaPinWrites }) => Promise<SendResult>,
  ) {
    const result = await this.#store.write(work);
    if (result.event) this.#events.emit(result.event);
    if (result.outcome.delivered) this.#onPinSent?.(channel, kind);
    return result;
  }

  #send(account: Account, channel: Channel, request: SendPinRequest): Promise<SendResult> {
    return this.#committed(channel, "send", async (tx) => {
      const application: StoredApplication = await this.#applications.storedApplication(
        account,
        request.applicationId,
        tx.tfa,
      );
      const template = await this.#applications.storedTemplate(application, request.messageId, tx.tfa);
      if (!application.enabled) throw disabledError(application.applicationId);
      const msisdn = normalizeMsisdn(request.to) as string;
      const now = this.#now();
      await this.#checkSendLimits(tx.tfaPins, application, msisdn, now);

      const limits = limitsOf(application.configuration);
      const pin = generatePin(template.pinType, template.pinLength, this.#randomIndex);
      const text = renderMessage(template.messageText, pin, request.placeholders ?? {});
      const outcome = deliveryOutcome(msisdn);
      const pinId = newKeyId();
      const expiresAt = now + limits.pinTimeToLiveMs;
      const attemptsRemaining = application.configuration.pinAttempts;
      await tx.tfaPins.insertPin(
        {
          pinId,
          accountId: account.id,
          applicationRef: application.id,
          templateRef: template.id,
          msisdn,
          pin,
          sent: outcome.delivered,
          createdAt: now,
          expiresAt,
          attemptsRemaining,
        },
        {
          accountId: account.id,
          applicationRef: application.id,
          msisdn,
          channel,
          text,
          sentAt: now,
        },
      );
      const event = capturedEvent(account, {
        pinId,
        applicationId: application.applicationId,
        applicationName: application.name,
        messageId: template.messageId,
        to: msisdn,
        channel,
        pin,
        text,
        sentAt: now,
        expiresAt,
        attemptsRemaining,
        verified: false,
      });
      return { pinId, msisdn, outcome, event };
    });
  }

  #resend(account: Account, pinId: string, channel: Channel, request: ResendPinRequest): Promise<SendResult> {
    return this.#committed(channel, "resend", async (tx) => {
      const record = await this.#record(tx.tfaPins, account, pinId);
      if (!record.applicationEnabled) throw disabledError(record.applicationId);
      const now = this.#now();
      const refusal = resendRefusal(record, record.configuration, now);
      if (refusal) throw badRequest(`PIN ${record.pinId} cannot be resent: ${refusal}`);
      await this.#checkSendLimits(
        tx.tfaPins,
        {
          id: record.applicationRef,
          applicationId: record.applicationId,
          configuration: record.configuration,
        },
        record.msisdn,
        now,
      );

      const text = renderMessage(record.template.messageText, record.pin, request.placeholders ?? {});
      const outcome = deliveryOutcome(record.msisdn);
      await tx.tfaPins.recordResend({
        pinRef: record.id,
        pinId: record.pinId,
        accountId: account.id,
        applicationRef: record.applicationRef,
        msisdn: record.msisdn,
        channel,
        text,
        sentAt: now,
      });
      const event = capturedEvent(account, {
        pinId: record.pinId,
        applicationId: record.applicationId,
        messageId: record.messageId,
        to: record.msisdn,
        channel,
        pin: record.pin,
        text,
        sentAt: now,
        expiresAt: record.expiresAt,
        attemptsRemaining: record.attemptsRemaining,
        verified: record.verified,
      });
      return { pinId: record.pinId, msisdn: record.msisdn, outcome, event };
    });
  }

  /** POST /2fa/2/pin?ncNeeded= : ncStatus is answered unless Number Lookup is turned off (on by default). */
  async sendSms(
    account: Account,
    query: Partial<SendPinQuery>,
    body: SendPinRequest,
  ): Promise<SmsPinResponseDto> {
    const { ncNeeded } = query;
    const { pinId, msisdn, outcome } = await this.#send(account, "SMS", body);
    return {
      pinId,
      to: msisdn,
      ...(ncNeeded !== false && { ncStatus: outcome.ncStatus }),
      smsStatus: outcome.smsStatus,
    };
  }

  async sendVoice(account: Account, body: SendPinRequest): Promise<VoicePinResponseDto> {
    const { pinId, msisdn, outcome } = await this.#send(account, "VOICE", body);
    return { pinId, to: msisdn, callStatus: outcome.callStatus };
  }

  async resendSms(account: Account, pinId: string, body: ResendPinRequest): Promise<SmsPinResponseDto> {
    const result = await this.#resend(account, pinId, "SMS", body);
    return { pinId: result.pinId, to: result.msisdn, smsStatus: result.outcome.smsStatus };
  }

  async resendVoice(account: Account, pinId: string, body: ResendPinRequest): Promise<VoicePinResponseDto> {
    const result = await this.#resend(account, pinId, "VOICE", body);
    return { pinId: result.pinId, to: result.msisdn, callStatus: result.outcome.callStatus };
  }

  /**
   * The PIN `pinId` of the account, or a 404: what its verify and resend routes answer before
   * their body (the write reads it again).
   */
  async pinOf(account: Account, pinId: string): Promise<PinRecord> {
    return this.#record(this.#store.tfaPins, account, pinId);
  }

  async verify(account: Account, pinId: string, request: VerifyPinRequest): Promise<PinVerificationDto> {
    let touched: string | undefined;
    const write = this.#store.write(async (tx) => {
      const read = await this.#record(tx.tfaPins, account, pinId);
      const now = this.#now();
      const { verifyPinLimit } = limitsOf(read.configuration);
      const allowed = await takeVerifyCall(tx.tfaPins, read, verifyPinLimit, now);
      if (!allowed.allowed) {
        throw tooManyRequests(
          `verifyPinLimit (${read.configuration.verifyPinLimit}) of 2FA application ${read.applicationId} reached for PIN ${read.pinId}`,
          allowed.retryAfterMs,
        );
      }
      const matches = pinMatches(read.pin, request.pin, read.template.pinType);
      // Status reads overlapping this write keep nothing: those begun before it are dropped now,
      // those begun during it once it settled (committed or not).
      touched = read.pinId;
      this.#statusCache.delete(touched);
      const { record, decision } = await this.#decideAndStore(tx.tfaPins, account, read, matches, now);
      const answer: PinVerificationDto = {
        pinId: record.pinId,
        msisdn: record.msisdn,
        verified: decision.verified,
        attemptsRemaining: decision.attemptsRemaining,
        ...(decision.pinError && { pinError: decision.pinError }),
      };
      const event: PinEvent | undefined = decision.next && {
        type: "state",
        accountId: account.id,
        state: {
          pinId: record.pinId,
          applicationId: record.applicationId,
          to: record.msisdn,
          attemptsRemaining: decision.next.attemptsRemaining,
          verified: decision.next.verified,
        },
      };
      return { answer, event };
    });
    const { answer, event } = await write.finally(() => {
      if (touched) this.#statusCache.delete(touched);
    });
    if (event) this.#events.emit(event);
    return answer;
  }

  /**
   * Decides a verification and stores what it changes with conditional writes: an attempt is
   * spent only while one is left, a PIN is marked verified only while it can be. When the PIN
   * changed since it was read (a write elsewhere: another replica on a shared database), the call
   * is decided again on the PIN as stored now. A PIN's state only moves one way (attempts down,
   * verified once), so this ends.
   */
  async #decideAndStore(
    pins: TfaPinWrites,
    account: Account,
    read: PinRecord,
    matches: boolean,
    now: number,
  ): Promise<{ record: PinRecord; decision: VerifyDecision }> {
    let record = read;
    for (;;) {
      const decision = decideVerification(record, record.configuration, matches, now);
      const next = decision.next;
      if (!next) return { record, decision };
      if (next.verified && !record.verified) {
        if (await pins.markVerified(record, next.verifiedAt ?? now)) {
          // Wrong PINs may have spent attempts between the read and this write (another replica):
          // the answer says what is left now, as it would had they come first on one process.
          const left = (await pins.status(record.pinId))?.attemptsRemaining ?? next.attemptsRemaining;
          return {
            record,
            decision: { ...decision, attemptsRemaining: left, next: { ...next, attemptsRemaining: left } },
          };
        }
      } else {
        // A wrong PIN. Attempts spent elsewhere meanwhile show in what is left after this one.
        const left = await pins.spendAttempt(record);
        if (left !== undefined) {
          return {
            record,
            decision: { ...decision, attemptsRemaining: left, next: { ...next, attemptsRemaining: left } },
          };
        }
      }
      record = await this.#record(pins, account, record.pinId);
    }
  }

  /** GET /2fa/2/pin/{pinId}/status: the benchmarked hot path, one indexed lookup and no decryption. */
  async status(account: Account, pinId: string): Promise<PinVerificationDto> {
    const row = TFA_ID_PATTERN.test(pinId)
      ? (this.#statusCache.peek(pinId) ??
        (await this.#statusCache.load(pinId, () => this.#store.tfaPins.status(pinId))))
      : undefined;
    if (!row || row.accountId !== account.id) throw notFound(`no PIN ${shownId(pinId)} in this account`);
    const pinError = statusPinError(row, this.#now());
    return {
      pinId: row.pinId,
      msisdn: row.msisdn,
      verified: row.verified,
      attemptsRemaining: row.attemptsRemaining,
      ...(pinError && { pinError }),
    };
  }

  /** The PINs of `application` (storedApplication: the caller's) the query asks for. */
  async verifications(
    application: StoredApplication,
    request: VerificationsQuery,
  ): Promise<VerificationListDto> {
    const rows = await this.#store.tfaPins.verifications(
      application.id,
      normalizeMsisdn(request.msisdn) as string,
      {
        ...(request.verified !== undefined && { verified: request.verified }),
        ...(request.sent !== undefined && { sent: request.sent }),
      },
    );
    return {
      verifications: rows.map((row) => ({
        msisdn: row.msisdn,
        verified: row.verified,
        ...(row.verifiedAt !== null && { verifiedAt: row.verifiedAt }),
        sentAt: row.sentAt,
      })),
    };
  }
}
