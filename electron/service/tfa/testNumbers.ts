import type { CallStatus, Channel, NcStatus, SmsStatus } from "../../../shared/tfa.ts";

/**
 * Numbers that force the failure paths, so applications can test their error handling offline.
 * They are in the UK's range reserved for drama (+44 7700 900000 to 900999, Ofcom), which is
 * never assigned to a real phone. Every other number is delivered. Every message is captured in
 * the inbox, those kept from the phone with their status, so a tester sees what the app asked for.
 * @internal Exported for tests.
 */
export const TEST_NUMBERS = {
  /** Number Lookup says the destination is not reachable; nothing is sent. */
  destinationNotReachable: "447700900001",
  /** Reachable, but the message is not sent. */
  messageNotSent: "447700900002",
} as const;

export interface DeliveryOutcome {
  /** Whether the message reaches the (simulated) phone. */
  delivered: boolean;
  ncStatus: NcStatus;
  smsStatus: SmsStatus;
  callStatus: CallStatus;
}

const DELIVERED: DeliveryOutcome = {
  delivered: true,
  ncStatus: "NC_DESTINATION_REACHABLE",
  smsStatus: "MESSAGE_SENT",
  callStatus: "PENDING_ACCEPTED",
};

/** What happens to a message to this (normalized) number, on either channel. */
export function deliveryOutcome(msisdn: string): DeliveryOutcome {
  if (msisdn === TEST_NUMBERS.destinationNotReachable) {
    return {
      delivered: false,
      ncStatus: "NC_DESTINATION_NOT_REACHABLE",
      smsStatus: "MESSAGE_NOT_SENT",
      callStatus: "REJECTED_DESTINATION",
    };
  }
  if (msisdn === TEST_NUMBERS.messageNotSent) {
    return {
      delivered: false,
      ncStatus: "NC_DESTINATION_REACHABLE",
      smsStatus: "MESSAGE_NOT_SENT",
      callStatus: "UNDELIVERABLE_NOT_DELIVERED",
    };
  }
  return DELIVERED;
}

/**
 * What the inbox says of a message to this number: whether it reached the phone, and the status
 * the send answered (the SMS status, or the call status of a voice PIN), and an SMS's Number Lookup
 * status, which tells the two failure numbers apart (both SMS are MESSAGE_NOT_SENT). Derived from the number,
 * as the outcome itself is, so a message listed later says what its send said.
 */
export function deliveryOf(
  msisdn: string,
  channel: Channel,
): { delivered: boolean; status: SmsStatus | CallStatus; ncStatus?: NcStatus } {
  const outcome = deliveryOutcome(msisdn);
  if (channel === "VOICE") return { delivered: outcome.delivered, status: outcome.callStatus };
  return { delivered: outcome.delivered, status: outcome.smsStatus, ncStatus: outcome.ncStatus };
}
