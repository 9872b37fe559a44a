import { setImmediate as nextTurn } from "node:timers/promises";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import type { CapturedPinDto, CapturedPinListDto, PinStateDto } from "../../../shared/tfa.ts";
import { INVALID_QUERY } from "../errors.ts";
import type { Account, AccountStore } from "../store/accountStore.ts";
import type { CapturedRow, TfaPinStore } from "../store/tfaPinStore.ts";
import { numberPartDigits } from "./phoneNumbers.ts";
import type { PinEvent } from "./pinEvents.ts";
import { LOCAL_PINS_MAX_LIMIT, localPinsQuerySchema } from "./schemas.ts";
import { parseOrBadRequest } from "./validation.ts";

/** Messages read per step of a list. */
const STEP_PINS = 128;

export interface InboxFilter {
  /** Digits the number contains (a search: part of a number finds it). */
  toDigits?: string;
  applicationId?: string;
  limit: number;
}

export function toCapturedPinDto(row: CapturedRow): CapturedPinDto {
  return {
    pinId: row.pinId,
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
  };
}

/**
 * The PIN inbox (`/local/1/pins`): every captured message of the caller's account and of the
 * accounts it manages, newest first, narrowed by `to` and `applicationId`.
 */
export class PinInbox {
  readonly #pins: TfaPinStore;
  readonly #accounts: AccountStore;

  constructor(pins: TfaPinStore, accounts: AccountStore) {
    this.#pins = pins;
    this.#accounts = accounts;
  }

  /** The filter a query asks for (400 when it is invalid). */
  filterOf(query: unknown): InboxFilter {
    const request = parseOrBadRequest(localPinsQuerySchema, query ?? {}, INVALID_QUERY);
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
    const accountIds = this.#accounts
      .list()
      .filter((account) => this.#accounts.manages(caller.id, account.id))
      .map((account) => account.id);
    const pins: CapturedPinDto[] = [];
    let before: number | undefined;
    while (pins.length < filter.limit) {
      if (before !== undefined) await nextTurn();
      const step = Math.min(STEP_PINS, filter.limit - pins.length);
      const rows = this.#pins.captured({
        ...filter,
        accountIds,
        limit: step,
        ...(before !== undefined && { before }),
      });
      for (const row of rows) pins.push(toCapturedPinDto(row));
      if (rows.length < step) break;
      before = (rows[rows.length - 1] as CapturedRow).sendId;
    }
    return { pins };
  }

  /** Whether a live event concerns this caller (its own or a managed account) and passes the filter. */
  matcher(caller: Account, filter: InboxFilter): (event: PinEvent) => boolean {
    const managed = new Map<number, boolean>();
    return (event) => {
      let allowed = managed.get(event.accountId);
      if (allowed === undefined) {
        // Account parents never change, so the answer for an account holds for the stream's life.
        allowed = this.#accounts.manages(caller.id, event.accountId);
        managed.set(event.accountId, allowed);
      }
      if (!allowed) return false;
      const subject: CapturedPinDto | PinStateDto = event.type === "captured" ? event.pin : event.state;
      if (filter.toDigits !== undefined && !subject.to.includes(filter.toDigits)) return false;
      if (filter.applicationId !== undefined && subject.applicationId !== filter.applicationId) return false;
      return true;
    };
  }
}
