/** What the long-running commands (`key-service serve`, `npm run web`) share about their process. */

const FORCED_EXIT_AFTER_MS = 15_000;

/** Why listening failed, in words that say what to do. */
export function explainListenError(error: NodeJS.ErrnoException, host: string, port: number): string {
  if (error.code === "EADDRINUSE")
    return `port ${port} on ${host} is in use; choose another with --port (0 picks a free one)`;
  if (error.code === "EADDRNOTAVAIL") return `${host} is not an address of this machine; check --host`;
  if (error.code === "EACCES") return `not allowed to listen on ${host}:${port}; use a port above 1023`;
  return error.message;
}

/**
 * On SIGTERM or SIGINT: run `close` (finish in-flight work, close the database) and exit 0;
 * exit 1 if it fails or is still running after 15 s.
 */
export function stopOnSignals(name: string, close: () => Promise<void>): void {
  const stop = () => {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    setTimeout(() => {
      process.stderr.write(
        `${name}: still stopping after ${FORCED_EXIT_AFTER_MS / 1000} s; exiting anyway\n`,
      );
      process.exit(1);
    }, FORCED_EXIT_AFTER_MS).unref();
    close().then(
      () => {
        process.exitCode = 0;
      },
      (error: Error) => {
        process.stderr.write(`${name}: error while stopping: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
