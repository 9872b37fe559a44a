/** A count and its noun for the command line's one-line reports: "1 key", "2 keys", "0 accounts". */
export function counted(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
