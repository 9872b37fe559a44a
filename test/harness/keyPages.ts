/** Every key of a paged list, asking page after page until nextCursor is null (any transport). */
export async function everyPage<T>(
  fetchPage: (cursor: string | null) => Promise<{ keys: T[]; nextCursor: string | null }>,
): Promise<T[]> {
  const keys: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { keys: T[]; nextCursor: string | null } = await fetchPage(cursor);
    keys.push(...page.keys);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return keys;
}
