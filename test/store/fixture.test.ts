import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedStore } from '../support/seed-store.js';
import { exportFixture, FixtureError, hashToken, tokenId } from '../../src/store/fixture.js';
import { Store } from '../../src/store/store.js';
import { DEMO, demo, tempDir } from '../support/server.js';

let dir: string;
let cleanup: () => void;
const stores: Store[] = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  cleanup();
});

async function fresh(name: string): Promise<Store> {
  const s = await Store.open(path.join(dir, `${name}.json`));
  stores.push(s);
  return s;
}
function write(name: string, doc: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
}

const WS = '22222222-2222-4222-8222-222222222222';
const base = () => ({
  version: 1,
  users: [{ id: 'usr_1', name: 'Ada', email: 'ada@example.com' }],
  workspaces: [{ id: WS, name: 'Acme', stripe_account_id: 'acct_1', members: [{ user_id: 'usr_1', role: 'owner' }] }],
  listings: [
    {
      id: '33333333-3333-4333-8333-333333333333',
      workspace_id: WS,
      title: 'FAQ',
      template_slug: 'faq',
      items: [],
      created_at: '2026-01-01T00:00:00Z',
    },
  ],
});

describe('store fixture round trip', () => {
  it('demo.json → export → import → export gives the identical export', async () => {
    const a = await fresh('a');
    await seedStore(a, [DEMO]);
    const first = exportFixture(a);
    const b = await fresh('b');
    await seedStore(b, [write('export1.json', first)]);
    const second = exportFixture(b);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    // Tokens leave as hashes and still authenticate after the round trip.
    expect(JSON.stringify(first)).not.toContain(demo.owner);
    expect(b.get('tokens', tokenId(hashToken(demo.owner)))?.user_id).toBe('usr_ada');
    for (const c of [
      'users',
      'workspaces',
      'tokens',
      'listings',
      'threads',
      'bookings',
      'voice_interactions',
      'articles',
      'offers',
      'agents',
    ] as const) {
      expect(b.count(c), c).toBe(a.count(c));
      expect(b.count(c), c).toBeGreaterThan(0);
    }
  });
});

describe('bad fixtures are rejected with the JSON path, and nothing is imported', () => {
  type Case = [string, (d: ReturnType<typeof base> & Record<string, any>) => void, string[]];
  const cases: Case[] = [
    ['an unknown top-level member', (d) => (d.colour = 'red'), ['$.colour: unknown member']],
    [
      'an unknown nested member',
      // A member the fixture's type does not have: that is the point.
      (d) => ((d.workspaces[0].members[0] as Record<string, unknown>).since = '2020'),
      ['$.workspaces[0].members[0].since: unknown member'],
    ],
    [
      'an unknown member in a listing item',
      (d) => ((d.listings[0] as Record<string, unknown>).items = [{ title: 'Q', answer: 'A' }]),
      ['$.listings[0].items[0].answer: unknown member'],
    ],
    [
      'a dangling workspace reference',
      (d) => (d.listings[0].workspace_id = '44444444-4444-4444-8444-444444444444'),
      ['$.listings[0].workspace_id: refers to workspaces `44444444-4444-4444-8444-444444444444`, which does not exist'],
    ],
    [
      'a dangling member user',
      (d) => d.workspaces[0].members.push({ user_id: 'usr_ghost', role: 'member' }),
      ['$.workspaces[0].members[1].user_id: refers to users `usr_ghost`'],
    ],
    [
      'a thread in a workspace that does not exist',
      (d) =>
        (d.threads = [
          {
            id: '55555555-5555-4555-8555-555555555555',
            workspace_id: '66666666-6666-4666-8666-666666666666',
            contact: { id: '77777777-7777-4777-8777-777777777777' },
          },
        ]),
      ['$.threads[0].workspace_id: refers to workspaces'],
    ],
    [
      'a duplicate id',
      (d) => d.listings.push({ ...d.listings[0], title: 'Again' }),
      ['$.listings[1].id: duplicate id `33333333-3333-4333-8333-333333333333` (also at $.listings[0].id)'],
    ],
    [
      'a duplicate token',
      (d) =>
        (d.tokens = [1, 2].map((n) => ({
          token: 'wcm_pat_sameSameSame0123456789abcdefghijklmnop',
          user_id: 'usr_1',
          name: `t${n}`,
          abilities: [],
        }))),
      ['$.tokens[1]: duplicate token'],
    ],
    ['a title over 255', (d) => (d.listings[0].title = 'x'.repeat(256)), ['$.listings[0].title:']],
    ['a wrong version', (d) => (d.version = 2 as never), ['$.version:']],
    // The page limits come from the contract's PageMembers/SuggestedReply (they had drifted here).
    [
      'a page template over 255',
      (d) =>
        (d.pages = [
          {
            id: '88888888-8888-4888-8888-888888888888',
            workspace_id: d.workspaces[0].id,
            name: 'P',
            slug: 'p',
            template: `${'a'.repeat(250)}_contact`,
          },
        ]),
      ['$.pages[0].template:'],
    ],
    [
      'a suggested reply with an empty label',
      (d) =>
        (d.pages = [
          {
            id: '88888888-8888-4888-8888-888888888888',
            workspace_id: d.workspaces[0].id,
            name: 'P',
            slug: 'p',
            chat: { suggested_replies: [{ id: '99999999-9999-4999-8999-999999999999', label: '' }] },
          },
        ]),
      ['$.pages[0].chat.suggested_replies[0].label:'],
    ],
    [
      'several problems at once',
      (d) => {
        d.extra = 1;
        d.listings[0].workspace_id = '44444444-4444-4444-8444-444444444444';
      },
      ['$.extra: unknown member'],
    ],
  ];

  it.each(cases)('%s', async (_name, mutate, expected) => {
    const doc = base() as ReturnType<typeof base> & Record<string, any>;
    mutate(doc);
    const file = write('bad.json', doc);
    const s = await fresh('target');
    const err = await seedStore(s, [file]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureError);
    for (const e of expected) expect((err as Error).message).toContain(e);
    expect((err as Error).message).toContain(`${file} is not a valid store fixture; nothing was imported`);
    expect(s.isEmpty()).toBe(true);
    expect(s.count('listings')).toBe(0);
  });

  it('a bad second file stops the first from being imported too', async () => {
    const good = write('good.json', base());
    const bad = write('bad.json', {
      version: 1,
      listings: [
        {
          ...base().listings[0],
          id: '88888888-8888-4888-8888-888888888888',
          workspace_id: '44444444-4444-4444-8444-444444444444',
        },
      ],
    });
    const s = await fresh('target');
    await expect(seedStore(s, [good, bad])).rejects.toThrow(/bad\.json[\s\S]*\$\.listings\[0\]\.workspace_id/);
    expect(s.isEmpty()).toBe(true);
  });

  it('a later file may refer to an earlier one; a clash between them is a duplicate', async () => {
    const first = write('first.json', base());
    const second = write('second.json', {
      version: 1,
      listings: [{ ...base().listings[0], id: '99999999-9999-4999-8999-999999999999' }],
    });
    const s = await fresh('target');
    expect(await seedStore(s, [first, second])).toEqual({ users: 1, workspaces: 1, listings: 2 });
    const clash = write('clash.json', { version: 1, listings: [base().listings[0]] });
    const t = await fresh('target2');
    await expect(seedStore(t, [first, clash])).rejects.toThrow(
      /\$\.listings\[0\]\.id: id `33333333-3333-4333-8333-333333333333` already exists/,
    );
    expect(t.isEmpty()).toBe(true);
  });

  it('importing into a store that has the ids already is refused', async () => {
    const s = await fresh('target');
    await seedStore(s, [write('a.json', base())]);
    await expect(seedStore(s, [write('b.json', base())])).rejects.toThrow(
      /\$\.users\[0\]\.id: id `usr_1` already exists in the store/,
    );
    expect(s.count('listings')).toBe(1);
  });

  it.each([
    ['not JSON', '{"version": 1,', /\$: is not valid JSON/],
    ['missing', null, /\$: not found/],
  ])('a file that is %s names the file', async (_n, text, re) => {
    const file = text === null ? path.join(dir, 'nope.json') : write('broken.json', text);
    const s = await fresh('target');
    await expect(seedStore(s, [file])).rejects.toThrow(re);
    expect(s.isEmpty()).toBe(true);
  });

  it('the demo fixture itself is valid and rich', async () => {
    const s = await fresh('demo');
    const counts = await seedStore(s, [DEMO]);
    expect(counts.workspaces).toBeGreaterThanOrEqual(3);
    expect(counts.threads).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(DEMO, 'utf8')).version).toBe(1);
  });
});
