import { describe, expect, it } from 'vitest';
import { accounts, expectedThreadPage, generateListings, generateThreads, threadSummary } from './datasets.mjs';
import { importRecords, parseFixture } from '../../src/store/fixtures/import.js';
import { threadFilterPartition } from '../../src/store/indexes.js';
import { Store } from '../../src/store/json/store.js';
import { tempDir } from '../support/server.js';

describe('benchmark data sets', () => {
  it('are deterministic: the same size gives the same records', () => {
    expect(JSON.stringify(generateThreads(300))).toBe(JSON.stringify(generateThreads(300)));
    expect(JSON.stringify(generateListings(300))).toBe(JSON.stringify(generateListings(300)));
    expect(accounts().token).toBe(accounts().token);
  });

  it('are valid store fixtures, and the expected page is the store index order for that filter', async () => {
    const acc = accounts();
    const threads = generateThreads(2_000);
    const fixture = {
      version: 1,
      users: acc.users,
      workspaces: acc.workspaces,
      tokens: acc.tokens,
      threads,
      listings: generateListings(500),
    };
    const t = tempDir();
    const store = await Store.open(`${t.dir}/store.json`);
    try {
      await importRecords(store, parseFixture(JSON.parse(JSON.stringify(fixture)), 'bench'));
      expect(store.count('threads')).toBe(2_000);
      expect(store.count('listings')).toBe(500);
      for (const [view, channel] of [
        ['inbox', 'whatsapp'],
        ['closed', undefined],
        ['unread', 'email'],
        ['starred', undefined],
      ] as const) {
        const page = expectedThreadPage(threads, {
          workspaceId: acc.workspaceId,
          view,
          channel,
          limit: 50,
        });
        expect(page.length).toBeGreaterThan(0);
        // The partition listThreads reads for this filter.
        const fromIndex = store
          .index('threadsByFilter')
          .entries(threadFilterPartition(acc.workspaceId, view, channel))
          .slice(0, 50);
        expect(page.map((x) => x.id)).toEqual(fromIndex.map((x) => x.rec.id));
      }
      // json-server sorts by last_message_at: unique per thread, so both orders agree without a tie-break.
      const last = new Set(threads.map((x) => threadSummary(x).last_message_at));
      expect(last.size).toBe(threads.length);
    } finally {
      await store.close();
      t.cleanup();
    }
  });
});
