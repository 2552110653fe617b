import type { Store } from './store.js';

/**
 * The setting `id`: the kept value, else `make()`'s, kept now. Checked inside the transaction, so
 * processes starting together on one database keep one value, and each returns the one kept.
 */
export async function keepSetting(
  store: Store,
  id: string,
  make: () => string,
): Promise<{ value: string; made: boolean }> {
  return store.transact((tx) => {
    const kept = tx.get('settings', id)?.value;
    if (typeof kept === 'string' && kept) return { value: kept, made: false };
    return { value: tx.put('settings', { id, value: make() }).value as string, made: true };
  });
}
