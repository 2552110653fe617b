/*
 * The JSON engine over the store it wraps (src/store/json/engine.ts): its unique indexes follow
 * writes made through the store's older paths (`transact`, `bulk`), which the server still uses
 * while its areas move onto the interface, and a transaction is one journal line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonEngine } from '../../../src/store/json/engine.js';
import type { TokenRecord } from '../../../src/store/records.js';
import { listing, useTempStores } from '../../support/store.js';

const stores = useTempStores();
const token = (n: number, sha: string): TokenRecord => ({
  id: `tok_${n}`,
  token_sha256: sha,
  user_id: 'u1',
  name: `token ${n}`,
  abilities: [],
  expires_at: null,
  revoked_at: null,
});

describe('the JSON engine', () => {
  it('finds by a unique index what transact and bulk wrote, before and after the index was first built', async () => {
    const store = await stores.open(path.join(stores.dir, 's.json'));
    const engine = new JsonEngine(store);
    await store.transact((tx) => tx.put('tokens', token(1, 'a'.repeat(64))));
    const find = (sha: string) => engine.read((tx) => tx.find('tokens', 'tokensBySha256', sha));
    expect((await find('a'.repeat(64)))?.id).toBe('tok_1');
    // Built now: a later write through transact moves the key.
    await store.transact((tx) => tx.put('tokens', token(1, 'b'.repeat(64))));
    expect(await find('a'.repeat(64))).toBeUndefined();
    expect((await find('b'.repeat(64)))?.id).toBe('tok_1');
    await store.transact((tx) => tx.delete('tokens', 'tok_1'));
    expect(await find('b'.repeat(64))).toBeUndefined();
    // A bulk load bypasses the per-record path: the index is built again from the records.
    await store.bulk((tx) => {
      tx.put('tokens', token(2, 'c'.repeat(64)));
    });
    expect((await find('c'.repeat(64)))?.id).toBe('tok_2');
    // And a write that gives another token that hash is refused.
    await expect(engine.write((tx) => tx.put('tokens', token(3, 'c'.repeat(64))))).rejects.toMatchObject({
      index: 'tokensBySha256',
    });
  });

  it('journals one write transaction as one line, after the state had all of it', async () => {
    const file = path.join(stores.dir, 's.json');
    const store = await stores.open(file);
    const engine = new JsonEngine(store);
    const before = readFileSync(`${file}.journal`, 'utf8').split('\n').filter(Boolean).length;
    await engine.write(async (tx) => {
      for (let i = 1; i <= 3; i++) await tx.put('listings', listing(i));
      await tx.delete('listings', listing(2).id);
    });
    const lines = readFileSync(`${file}.journal`, 'utf8').split('\n').filter(Boolean);
    expect(lines.length - before).toBe(1);
    expect(store.count('listings')).toBe(2);
    expect(
      store
        .index('listingsByWorkspace')
        .entries(listing(1).workspace_id)
        .map((e) => e.rec.id),
    ).toEqual([listing(3).id, listing(1).id]);
  });
});
