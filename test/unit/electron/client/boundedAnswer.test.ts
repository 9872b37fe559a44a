import assert from "node:assert/strict";
import { test } from "node:test";
import { AnswerTooLarge, formatBytes, readBoundedText } from "../../../../electron/client/boundedAnswer.ts";

/** A real streamed Response whose chunks are produced only as they are read, counting them. */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled += 1;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return { response: new Response(body, { headers }), pulled: () => pulled };
}

test("an answer within the limit is read whole; a leading BOM is dropped as response.text() does", async () => {
  const { response } = streamed(4, 1024);
  assert.equal((await readBoundedText(response, 4096)).length, 4096);
  const bom = new Response(new Uint8Array([0xef, 0xbb, 0xbf, 0x5b, 0x5d]));
  assert.equal(await readBoundedText(bom, 100), "[]");
});

test("reading stops at the first chunk past the limit", async () => {
  const { response, pulled } = streamed(1_000, 1024);
  await assert.rejects(readBoundedText(response, 10 * 1024), AnswerTooLarge);
  assert.ok(pulled() <= 12, `${pulled()} chunks were produced`);
});

test("a Content-Length above the limit is refused before any chunk is read", async () => {
  const { response, pulled } = streamed(1_000, 1024, { "content-length": String(5 * 1024 ** 3) });
  await assert.rejects(readBoundedText(response, 1024 * 1024), /larger than 1 MB/);
  assert.equal(pulled(), 0);
  assert.equal(formatBytes(256 * 1024 * 1024), "256 MB");
  assert.equal(formatBytes(1000), "1000 bytes");
});
