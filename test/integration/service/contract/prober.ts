import assert from "node:assert/strict";
import { type ApiRequest, type ApiResponse, basic, request } from "../../../harness/keyServiceProcess.ts";
import {
  type OpenApiConformance,
  type OpenApiDocument,
  openApiConformance,
} from "../../../harness/openApiConformance.ts";
import type { ContractCoverage } from "./contractCoverage.ts";
import { type ContractWorld, OWNER } from "./contractWorld.ts";

/**
 * Sends one real request for the contract suite, asserts the status it was meant to reach and
 * that the answer conforms to the document, and records which documented answer it landed on.
 */
export class Prober {
  readonly world: ContractWorld;
  readonly doc: OpenApiDocument;
  readonly conformance: OpenApiConformance;
  readonly coverage: ContractCoverage;

  constructor(world: ContractWorld, doc: OpenApiDocument, coverage: ContractCoverage) {
    this.world = world;
    this.doc = doc;
    this.conformance = openApiConformance(doc);
    this.coverage = coverage;
  }

  /** The owner's Basic credentials. */
  get owner(): string {
    return this.world.service.auth(OWNER);
  }

  /**
   * `expected` (or one of them) from `req` (owner credentials unless given; `authorization: ""` sends
   * none). `direct` sends it to the serve process itself, not through the fixture's proxy, where the
   * request's own source address (`localAddress`) is the client address the service sees.
   */
  async probe(
    expected: number | number[],
    { direct, ...req }: ApiRequest & { direct?: true },
  ): Promise<ApiResponse> {
    const method = req.method ?? (req.body === undefined && req.rawBody === undefined ? "GET" : "POST");
    const authorization = req.authorization === undefined ? this.owner : req.authorization || undefined;
    const { service } = this.world;
    const res = await request(direct ? service.serve.url : service.url, { ...req, method, authorization });
    const resolution = this.conformance.assertConforms({ method, path: req.path, ...res });
    this.coverage.record(resolution);
    assert.ok(
      [expected].flat().includes(res.status),
      `${method} ${req.path} (${resolution.operation}): expected ${expected}, got ${res.status} ${res.text}`,
    );
    return res;
  }

  /** A 200 whose JSON body is returned. */
  async ok<T = Record<string, unknown>>(req: ApiRequest): Promise<T> {
    return (await this.probe(200, req)).json as T;
  }
}

/** Basic credentials that fail: the right username, a wrong password. */
export const wrongPassword = () => basic(OWNER, "not the password");
