import http from "node:http";
import { type Exchange, type OpenApiConformance, openApiConformance } from "./openApiConformance.ts";

/**
 * Which running key services the harness checks answers of, each against its own /openapi.json.
 * `startServe` registers every process it starts (and fetches its document at once, while it
 * surely runs); a key service started in-process registers with `checkAnswersOf`. Other peers (the
 * foreign remote written from the spec, the web host, a lossy proxy) are never registered, so
 * their answers are not held to a document that is not theirs.
 */

const services = new Map<string, Promise<OpenApiConformance>>();
/** Compiled checkers by document text: every service a test starts runs the same code. */
const byDocument = new Map<string, OpenApiConformance>();

const originOf = (baseUrl: string) => new URL(baseUrl).origin;

/** GET /openapi.json of a running service, over its own connection (no checking: it is the reference). */
function fetchDocument(baseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL("/openapi.json", baseUrl), { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`GET ${baseUrl}/openapi.json answered ${res.statusCode}: ${text}`));
      });
    });
    req.on("error", reject);
  });
}

async function conformanceFrom(baseUrl: string): Promise<OpenApiConformance> {
  const text = await fetchDocument(baseUrl);
  let conformance = byDocument.get(text);
  if (!conformance) {
    conformance = openApiConformance(JSON.parse(text));
    byDocument.set(text, conformance);
  }
  return conformance;
}

/**
 * From now on every answer the harness's `request` gets from `baseUrl` must conform to the
 * document that service serves (fetched now). Returns the function that ends the checking, for
 * when the service stops (another process may later listen on the same port).
 */
export async function checkAnswersOf(baseUrl: string): Promise<() => void> {
  const origin = originOf(baseUrl);
  const conformance = conformanceFrom(baseUrl);
  services.set(origin, conformance);
  try {
    await conformance;
  } catch (error) {
    services.delete(origin);
    throw error;
  }
  return () => {
    if (services.get(origin) === conformance) services.delete(origin);
  };
}

/**
 * The checker of the service at `baseUrl`, if answers from there are checked. Taken when a request
 * is sent, so an answer that arrives while its service stops is still checked.
 */
export function checkerFor(baseUrl: string): Promise<OpenApiConformance> | undefined {
  return services.get(originOf(baseUrl));
}

/** Fails (throws the assertion) when a checked answer does not conform. */
export async function assertConformingAnswer(
  checker: Promise<OpenApiConformance>,
  exchange: Exchange,
): Promise<void> {
  (await checker).assertConforms(exchange);
}
