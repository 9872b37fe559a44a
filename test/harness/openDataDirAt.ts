import { openDataDir } from "../../electron/service/dataDir.ts";

/**
 * A process that opens a data dir at an agreed instant (argv: dir, epoch ms) and prints `opened`
 * with the data key's check value, or `failed: <message>`: two of them started together race for a
 * new file as two `serve` processes do, without the rest of a service's start in between.
 */
const [dir, at] = process.argv.slice(2);
if (!dir || !at) throw new Error("usage: openDataDirAt.ts DIR EPOCH_MS");
// Spinning, not a timer: both processes must reach the open within a fraction of a millisecond.
while (Date.now() < Number(at)) {}
try {
  const data = openDataDir({ dataDir: dir });
  console.log(`opened ${data.box.checkValue}`);
  data.close();
} catch (error) {
  console.log(`failed: ${(error as Error).message}`);
}
