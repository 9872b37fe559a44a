import { setImmediate as nextTurn } from "node:timers/promises";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import type { CapturedPinDto, CapturedPinListDto, PinStateDto } from "../../../shared/tfa.ts";
import { managedAccounts } from "../domain/accountRules.ts";
import type { Account } from "../domain/accounts.ts";
import type { CapturedMessage } from "../domain/tfaRecords.ts";
import type { AccountReads, TfaPinReads } from "../store/store.ts";
import { numberPartDigits } from "./phoneNumbers.ts";
import type { PinEvent } from "./pinEvents.ts";
import { LOCAL_PINS_MAX_LIMIT, type LocalPinsQuery } from "./schemas.ts";
import { deliveryOf } from "./testNumbers.ts";

/** Messages read per step of a list. */
const STEP_PINS = 128;

export interface InboxFilter {
  /** Digits the number contains (a search: part of a number finds it). */
  toDigits?: string;
  applicationId?: string;
  limit: number;
}

export function toCapturedPinDto(row: CapturedMessage): CapturedPinDto {
  return {
    pinId: row.pinId,
    accountKey: row.accountKey,
    applicationId: row.applicationId,
    applicationName: row.applicationName,
    messageId: row.messageId,
    to: row.msisdn,
    channel: row.channel,
    pin: row.pin,
    text: row.text,
    sentAt: formatApiDateTime(row.sentAt),
    expiresAt: formatApiDateTime(row.expiresAt),
    attemptsRemaining: row.attemptsRemaining,
    verified: row.verified,
    ...deliveryOf(row.msisdn, row.channel),
  };
}

/**
 * The PIN inbox (`/local/1/pins`): every captured message of the caller's account and of the
 * accounts it manages, newest first, narrowed by `to` and `applicationId`.
 */
export class PinInbox {
  readonly #pins: TfaPinReads;
  readonly #accounts: AccountReads;

  constructor(pins: TfaPinReads, accounts: AccountReads) {
    this.#pins = pins;
    this.#accounts = accounts;
  }

  /** The filter a query asks for (validated by its route: localPinsQuerySchema or a part of it). */
  filterOf(request: Partial<LocalPinsQuery>): InboxFilter {
    return {
      ...(request.to !== undefined && { toDigits: numberPartDigits(request.to) as string }),
      ...(request.applicationId !== undefined && { applicationId: request.applicationId }),
      limit: request.limit === undefined ? LOCAL_PINS_MAX_LIMIT : Number(request.limit),
    };
  }

  /**
   * Read and decrypted in steps of STEP_PINS with a turn of the event loop between them: a list
   * of a thousand messages (two decryptions each) never holds other requests for long.
   */
  async list(caller: Account, filter: InboxFilter): Promise<CapturedPinListDto> {
    const accountIds = managedAccounts(await this.#accounts.list(), caller.id).map((account) => account.id);
    const pins: CapturedPinDto[] = [];
    let before: number | undefined;
    while (pins.length < filter.limit) {
      if (before !== undefined) await nextTurn();
      const step = Math.min(STEP_PINS, filter.limit - pins.length);
      const rows = await this.#pins.captured({
        ...filter,
        accountIds,
        limit: step,
        ...(before !== undefined && { before }),
      });
      for (const row of rows) pins.push(toCapturedPinDto(row));
      if (rows.length < step) break;
      before = (rows[rows.length - 1] as CapturedMessage).sendId;
    }
    return { pins };
  }

  /**
   * A listener of live events that hands `deliver` those concerning this caller (its own or a
   * managed account's) and passing the filter, in the order they came. Whether the caller manages
   * an account is read from the store once per account (parents never change, so the answer holds
   * for the stream's life); events that come while such a read is pending wait behind it.
   */
  listener(
    caller: Account,
    filter: InboxFilter,
    deliver: (event: PinEvent) => void,
  ): (event: PinEvent) => void {
    const managed = new Map<number, boolean>([[caller.id, true]]);
    const passes = (event: PinEvent): boolean => {
      if (!managed.get(event.accountId)) return false;
      const subject: CapturedPinDto | PinStateDto = event.type === "captured" ? event.pin : event.state;
      if (filter.toDigits !== undefined && !subject.to.includes(filter.toDigits)) return false;
      if (filter.applicationId !== undefined && subject.applicationId !== filter.applicationId) return false;
      return true;
    };
    let waiting = 0;
    let queue: Promise<void> = Promise.resolve();
    return (event) => {
      if (waiting === 0 && managed.has(event.accountId)) {
        if (passes(event)) deliver(event);
        return;
      }
      waiting++;
      queue = queue
        .then(async () => {
          if (!managed.has(event.accountId)) {
            managed.set(event.accountId, await this.#accounts.manages(caller.id, event.accountId));
          }
          if (passes(event)) deliver(event);
        })
        // A store that cannot answer: the event is not shown (the list has it once it answers again).
        .catch(() => {})
        .finally(() => {
          waiting--;
        });
    };
  }
}
