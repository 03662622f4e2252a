export type Load = (key: string) => Promise<string>;

/** loadAll loads every key, resolving to the values in the order of keys. */
export async function loadAll(keys: string[], load: Load): Promise<string[]> {
  const out: string[] = [];
  keys.forEach(async (k) => {
    out.push(await load(k));
  });
  return out;
}
