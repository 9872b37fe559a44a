import http from "node:http";
import { performance } from "node:perf_hooks";

/** Timed GETs over one keep-alive connection: the time from sending to the last byte of the answer. */

export class BenchFailure extends Error {}

export interface TimedResponse {
  status: number;
  /** Milliseconds from the request until the whole body arrived. */
  ms: number;
  body: Buffer;
}

export class TimedClient {
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  readonly #url: URL;
  readonly #headers: Record<string, string>;

  constructor(baseUrl: string, headers: Record<string, string>) {
    this.#url = new URL(baseUrl);
    this.#headers = { accept: "application/json", ...headers };
  }

  get(path: string): Promise<TimedResponse> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.get(
        { host: this.#url.hostname, port: this.#url.port, path, headers: this.#headers, agent: this.#agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({
              status: response.statusCode as number,
              ms: performance.now() - started,
              body: Buffer.concat(chunks),
            }),
          );
          response.on("error", reject);
        },
      );
      request.on("error", reject);
    });
  }

  /** A GET that must answer 200; anything else fails the bench. */
  async getOk(path: string): Promise<TimedResponse> {
    const response = await this.get(path);
    if (response.status !== 200) {
      throw new BenchFailure(
        `GET ${path} answered ${response.status}: ${response.body.toString("utf8").slice(0, 300)}`,
      );
    }
    return response;
  }

  close(): void {
    this.#agent.destroy();
  }
}
