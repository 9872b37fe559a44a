import type { ChangeFeed, PinEventNote, TfaPinReads } from "../store/store.ts";
import type { PinEvent, PinEvents } from "./pinEvents.ts";
import { toCapturedPinDto } from "./pinInbox.ts";

/** The event of another replica's note, read from the store (the message is sealed there); none when gone. */
async function eventOf(note: PinEventNote, pins: TfaPinReads): Promise<PinEvent | undefined> {
  const { accountId } = note;
  if (note.type === "state") {
    // The note carries the state the change left (a later one may be stored already); the number
    // is read here, since a notification never carries one.
    const status = await pins.status(note.pinId);
    if (!status) return undefined;
    const { pinId, applicationId, attemptsRemaining, verified } = note;
    return {
      type: "state",
      accountId,
      state: { pinId, applicationId, to: status.msisdn, attemptsRemaining, verified },
    };
  }
  const [row] = await pins.captured({ accountIds: [accountId], before: note.sendId + 1, limit: 1 });
  if (row?.sendId !== note.sendId) return undefined;
  return { type: "captured", accountId, pin: toCapturedPinDto(row) };
}

/**
 * Tells this replica's open streams the PIN events of the other replicas of a shared database
 * (`changes.onPinEvent`: nothing on SQLite, where one process writes). Notes come in commit order;
 * each is read and told in that order, one after the other. Nothing is read while no stream is
 * open. A note missed while the feed's connection was down is not told, as a stream that
 * reconnects is not told what it missed: a client reads `/local/1/pins` for that.
 */
export function relayReplicaPinEvents(changes: ChangeFeed, pins: TfaPinReads, events: PinEvents): () => void {
  if (!changes.onPinEvent) return () => {};
  let queue: Promise<void> = Promise.resolve();
  return changes.onPinEvent((note) => {
    if (events.listenerCount === 0) return;
    queue = queue
      .then(async () => {
        const event = await eventOf(note, pins);
        if (event) events.emit(event);
      })
      // A store that cannot answer: the event is not shown (the list has it once it answers again).
      .catch(() => {});
  });
}
