/** Pages (and counts) kept per process (a page of 100 threads is about 60 KB). */
const CACHED_PAGES = 256;

/**
 * A cache of answers valid at one sequence number `seq()`: an entry made at another is loaded
 * again; at -1 (the last commit's outcome unknown, log.ts) nothing is kept. The oldest goes first.
 */
export function perSeq<V>(seq: () => number) {
  const kept = new Map<string, { at: number; v: V }>();
  return async (key: string, load: () => Promise<V>): Promise<V> => {
    const at = seq();
    const hit = kept.get(key);
    if (hit && hit.at === at) return hit.v;
    const v = await load();
    kept.delete(key);
    if (at >= 0) kept.set(key, { at, v });
    if (kept.size > CACHED_PAGES) kept.delete(kept.keys().next().value!);
    return v;
  };
}
