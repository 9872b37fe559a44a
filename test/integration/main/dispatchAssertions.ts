import assert from "node:assert/strict";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import type {
  ApiKeyView,
  BridgeError,
  BridgeMethod,
  BridgeResults,
  KeyQueryDto,
} from "../../../shared/bridge.ts";
import { everyPage } from "../../harness/keyPages.ts";

/** A bridge call through the core that must succeed; answers its typed value. */
export async function ok<M extends BridgeMethod>(
  core: KeydeskCore,
  method: M,
  args?: unknown,
): Promise<BridgeResults[M]> {
  const result = await core.dispatch(method, args);
  assert.ok(result.ok, `${method} failed: ${JSON.stringify(!result.ok && result.error)}`);
  return result.value as BridgeResults[M];
}

/** A bridge call through the core that must fail; answers its error. */
export async function fails(core: KeydeskCore, method: string, args?: unknown): Promise<BridgeError> {
  const result = await core.dispatch(method, args);
  assert.equal(result.ok, false, `${method} should have failed: ${JSON.stringify(result)}`);
  return (result as { ok: false; error: BridgeError }).error;
}

/** Every key keys.page answers for these arguments, page after page (for tests of small accounts). */
export async function allKeys(
  core: KeydeskCore,
  args: { accountKey?: string; query?: KeyQueryDto } = {},
): Promise<ApiKeyView[]> {
  return everyPage(
    (cursor): Promise<BridgeResults["keys.page"]> =>
      ok(core, "keys.page", { ...args, limit: 500, ...(cursor !== null && { cursor }) }),
  );
}
