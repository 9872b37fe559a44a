import http from "node:http";

/**
 * The baseline for the App-authorization benchmark: a bare node:http server answering a fixed
 * JSON body, run in its own process like the key service. Prints `listening PORT` when ready.
 */
const body = process.env.BENCH_BODY ?? "{}";
const server = http.createServer((_request, response) => {
  response.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
server.keepAliveTimeout = 72_000;
