/** A count of keys in words, in the singular for one: "1 key", "1,200 keys". */
export const keysWord = (count: number) => `${count.toLocaleString()} key${count === 1 ? "" : "s"}`;
