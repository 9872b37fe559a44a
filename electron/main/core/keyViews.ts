import type { ApiKeyWithExtrasDto } from "../../../shared/apiKeys.ts";
import type { ApiKeyView, RevealedApiKey } from "../../../shared/bridge.ts";

/** Enough of a publicApiKey to recognize it (40 of its 250 random bits), never enough to use it. */
function publicApiKeyHint(publicApiKey: string): string {
  return publicApiKey.length <= 12 ? "…" : `${publicApiKey.slice(0, 6)}…${publicApiKey.slice(-4)}`;
}

/** A key as the renderer may see it: without its publicApiKey. */
export function toKeyView({ publicApiKey, ...rest }: ApiKeyWithExtrasDto): ApiKeyView {
  return { ...rest, publicApiKeyHint: publicApiKeyHint(publicApiKey) };
}

/** A key with its publicApiKey, for the moments the user sees it on purpose. */
export function toRevealedKey(key: ApiKeyWithExtrasDto): RevealedApiKey {
  return { ...toKeyView(key), publicApiKey: key.publicApiKey };
}
