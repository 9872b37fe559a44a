/** The service's error messageIds, a leaf both apiErrors.ts and errorBody.ts import (no cycle). */

export const MESSAGE_IDS = [
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "TOO_MANY_REQUESTS",
  "GENERAL_ERROR",
  "SERVICE_UNAVAILABLE",
] as const;

export type MessageId = (typeof MESSAGE_IDS)[number];
