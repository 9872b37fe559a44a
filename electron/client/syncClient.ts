import {
  type CreateSyncLinkRequest,
  type LocalOnlyKeyPageDto,
  type PushLocalOnlyRequest,
  type ResolveConflictRequest,
  type SyncKeyDto,
  type SyncLinkDto,
  type SyncOutboxEntryDto,
  syncPaths,
  type UpdateSyncLinkRequest,
} from "../../shared/sync.ts";
import { syncAnswerSchemas } from "../../shared/syncAnswers.ts";
import type { KeyServiceClient } from "./keyServiceClient.ts";

/**
 * The client of a Keydesk key service's sync routes (`/local/1/sync/links`, shared/sync.ts), over
 * the same transport as every other call (KeyServiceClient: Basic credentials, one error shape,
 * ServiceCallFailure). The desktop uses it against the embedded service only: links live there.
 * Every answer is checked with the schemas below before it is used.
 */

/** A run answers when it is done: pulling thousands of keys may take longer than a normal call. */
const SYNC_RUN_TIMEOUT_MS = 10 * 60_000;

/** The answers, the fields the service declares (shared/syncAnswers.ts), checked leniently. */
const answers = syncAnswerSchemas(false);
const syncLinkSchema = answers.syncLink;
const syncLinkListSchema = answers.syncLinkList;
const syncKeySchema = answers.syncKey;
const syncKeyListSchema = answers.syncKeyList;
const syncOutboxEntrySchema = answers.syncOutboxEntry;
const syncOutboxSchema = answers.syncOutbox;
const localOnlyKeyPageSchema = answers.localOnlyKeyPage;
const pushLocalOnlySchema = answers.pushLocalOnlyAnswer;

export class SyncClient {
  readonly #client: KeyServiceClient;

  constructor(client: KeyServiceClient) {
    this.#client = client;
  }

  async links(): Promise<SyncLinkDto[]> {
    return (await this.#client.requestJson(syncPaths.links, syncLinkListSchema)).links;
  }

  link(id: number): Promise<SyncLinkDto> {
    return this.#client.requestJson(syncPaths.link(id), syncLinkSchema);
  }

  /**
   * 409 CONFLICT when the local account is already linked; 400 naming the part of the remote's
   * check that failed. The service checks the remote before it answers, which may take its whole
   * request timeout towards remotes (10 s by default, more when configured): this call waits as
   * long as a run does rather than time out first and hide the check's answer.
   */
  createLink(request: CreateSyncLinkRequest): Promise<SyncLinkDto> {
    return this.#client.requestJson(syncPaths.links, syncLinkSchema, {
      method: "POST",
      body: request,
      timeoutMs: SYNC_RUN_TIMEOUT_MS,
    });
  }

  updateLink(id: number, request: UpdateSyncLinkRequest): Promise<SyncLinkDto> {
    return this.#client.requestJson(syncPaths.link(id), syncLinkSchema, { method: "PUT", body: request });
  }

  removeLink(id: number): Promise<void> {
    return this.#client.requestNoContent(syncPaths.link(id), { method: "DELETE" });
  }

  /** Runs the link now; answers its state once the run is over. */
  run(id: number): Promise<SyncLinkDto> {
    return this.#client.requestJson(syncPaths.run(id), syncLinkSchema, {
      method: "POST",
      timeoutMs: SYNC_RUN_TIMEOUT_MS,
    });
  }

  async keys(id: number): Promise<SyncKeyDto[]> {
    return (await this.#client.requestJson(syncPaths.keys(id), syncKeyListSchema)).keys as SyncKeyDto[];
  }

  resolve(id: number, key: string, request: ResolveConflictRequest): Promise<SyncKeyDto> {
    return this.#client.requestJson(syncPaths.resolve(id, key), syncKeySchema, {
      method: "POST",
      body: request,
    }) as Promise<SyncKeyDto>;
  }

  async outbox(id: number): Promise<SyncOutboxEntryDto[]> {
    return (await this.#client.requestJson(syncPaths.outbox(id), syncOutboxSchema)).entries;
  }

  /** Discards a failed entry (its change is not sent). */
  discardEntry(id: number, entryId: number): Promise<void> {
    return this.#client.requestNoContent(syncPaths.outboxEntry(id, entryId), { method: "DELETE" });
  }

  /** The linked account's local-only keys: their count and one page. */
  localOnly(id: number, page: { limit: number; cursor?: string | undefined }): Promise<LocalOnlyKeyPageDto> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.cursor !== undefined) query.set("cursor", page.cursor);
    return this.#client.requestJson(syncPaths.localOnly(id), localOnlyKeyPageSchema, { query });
  }

  /** Queues the create of local-only keys; answers how many were queued. */
  async pushLocalOnly(id: number, request: PushLocalOnlyRequest): Promise<number> {
    const answer = await this.#client.requestJson(syncPaths.pushLocalOnly(id), pushLocalOnlySchema, {
      method: "POST",
      body: request,
    });
    return answer.queued;
  }

  /** Puts a failed entry back in the queue. */
  retryEntry(id: number, entryId: number): Promise<SyncOutboxEntryDto> {
    return this.#client.requestJson(syncPaths.retryEntry(id, entryId), syncOutboxEntrySchema, {
      method: "POST",
    });
  }
}
