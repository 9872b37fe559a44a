/** A stored IBSSO session: never its token, only the token's keyed digest (kept in its row). */
export interface StoredSession {
  id: number;
  accountId: number;
  createdAt: number;
  expiresAt: number;
}
