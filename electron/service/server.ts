import { buildHttpApp, type HttpAppOptions } from "./http/app.ts";
import { openStorage, type StorageOptions } from "./openStorage.ts";

export type ServeOptions = StorageOptions &
  HttpAppOptions & {
    host: string;
    port: number;
  };

export interface RunningKeyService {
  /** Base URL, e.g. http://127.0.0.1:8787 */
  url: string;
  port: number;
  /** Finishes in-flight requests, then closes the database. */
  close(): Promise<void>;
}

/** Opens the storage (data directory or database) and serves the key service on host:port (port 0 picks a free one). */
export async function startKeyService(options: ServeOptions): Promise<RunningKeyService> {
  const data = await openStorage(options);
  const { app } = buildHttpApp(data, options);
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    await data.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close() {
      closing ??= app.close().then(() => data.close());
      return closing;
    },
  };
}
