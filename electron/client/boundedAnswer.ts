/**
 * Reading an HTTP answer body with a size cap. A remote is not trusted to answer a sane amount:
 * `response.text()` would buffer whatever it sends (a 3 GB key list took the service to 7 GB), so
 * the body is read chunk by chunk, counted, and the request is aborted as soon as it passes the cap.
 */

/** 256 MiB: far above any real key list (a 10,000-key list is a few MB), far below a process's memory. */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** The answer was (or said it would be) larger than the cap; nothing beyond the cap was kept. */
export class AnswerTooLarge extends Error {
  readonly limitBytes: number;

  constructor(limitBytes: number) {
    super(`the answer is larger than ${formatBytes(limitBytes)}`);
    this.name = "AnswerTooLarge";
    this.limitBytes = limitBytes;
  }
}

/** "256 MB" for whole mebibytes (MB = 1,048,576 bytes, as the serve option counts them), else bytes. */
export function formatBytes(bytes: number): string {
  const mb = 1024 * 1024;
  return bytes % mb === 0 ? `${bytes / mb} MB` : `${bytes} bytes`;
}

/**
 * The body as text, refusing a declared Content-Length above the cap before reading anything and
 * cancelling the stream (which closes the connection) once the bytes read pass it.
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnswerTooLarge(maxBytes);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  // TextDecoder, like response.text(): a leading BOM is dropped.
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}
