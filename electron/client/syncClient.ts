import { z } from "zod";
import {
  type CreateSyncLinkRequest,
  type LocalOnlyKeyPageDto,
  type PushLocalOnlyRequest,
  type ResolveConflictRequest,
  SYNCED_FIELDS,
  type SyncKeyDto,
  type SyncLinkDto,
  type SyncOutboxEntryDto,
  syncPaths,
  type UpdateSyncLinkRequest,
} from "../../shared/sync.ts";
import type { KeyServiceClient } from "./keyServiceClient.ts";

/**
 * The client of a Keydesk key service's sync routes (`/local/1/sync/links`, shared/sync.ts), over
 * the same transport as every other call (KeyServiceClient: Basic credentials, one error shape,
 * ServiceCallFailure). The desktop uses it against the embedded service only: links live there.
 * Every answer is checked with the schemas below before it is used.
 */

/** A run answers when it is done: pulling thousands of keys may take longer than a normal call. */
export const SYNC_RUN_TIMEOUT_MS = 10 * 60_000;

const nullableString = z.string().nullable();
const syncedField = z.enum(SYNCED_FIELDS);

export const syncLinkSchema = z.object({
  id: z.int(),
  accountKey: z.string(),
  remote: z.object({ baseUrl: z.string(), username: z.string(), accountKey: z.string() }),
  intervalSeconds: z.int(),
  state: z.enum(["idle", "running", "backing-off", "paused"]),
  pausedReason: z.enum(["credentials", "user"]).nullable(),
  progress: z.object({ phase: z.enum(["pull", "push"]), done: z.number(), total: z.number() }).nullable(),
  lastAttemptAt: nullableString,
  lastSuccessAt: nullableString,
  lastError: nullableString,
  nextRunAt: nullableString,
  pending: z.int(),
  failed: z.int(),
  conflicts: z.int(),
  remoteMissing: z.int(),
  linkedKeys: z.int(),
});

export const syncLinkListSchema = z.object({ links: z.array(syncLinkSchema) });

export const syncKeySchema = z.object({
  key: z.string(),
  name: z.string(),
  remoteKey: nullableString,
  state: z.enum(["synced", "pending", "conflict", "remote-missing", "failed", "local-only"]),
  conflicts: z.array(z.object({ field: syncedField, mine: z.unknown(), theirs: z.unknown() })),
  pendingFields: z.array(syncedField),
  error: nullableString,
});

export const syncKeyListSchema = z.object({ keys: z.array(syncKeySchema) });

export const syncOutboxEntrySchema = z.object({
  id: z.int(),
  key: z.string(),
  kind: z.enum(["create", "update"]),
  fields: z.array(syncedField),
  heldFields: z.array(syncedField),
  attempts: z.int(),
  failed: z.boolean(),
  lastError: nullableString,
  createdAt: z.string(),
});

export const syncOutboxSchema = z.object({ entries: z.array(syncOutboxEntrySchema) });

export const localOnlyKeyPageSchema = z.object({
  count: z.int(),
  keys: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      enabled: z.boolean(),
      validFrom: z.string().optional(),
      validTo: z.string().optional(),
    }),
  ),
  nextCursor: nullableString,
});

export const pushLocalOnlySchema = z.object({ queued: z.int() });

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
