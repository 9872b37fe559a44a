/** An account of the key service: who signs in (Basic) and owns keys, under its parent account. */
export interface Account {
  id: number;
  accountKey: string;
  username: string;
  passwordHash: string;
  parentId: number | null;
  createdAt: number;
}
