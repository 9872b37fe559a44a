import { startBenchThread } from "./benchThread.ts";

/** Full lists back to back for at least `forMs`, read at the lowest priority (listLoop.ts); resolves with their number. */
export async function listsInThread(options: {
  url: string;
  authorization: string;
  forMs: number;
  keys: number;
}): Promise<number> {
  const { answer } = startBenchThread<{ lists?: number }>("./listLoop.ts", options);
  return (await answer).lists ?? 0;
}
