/*
 * `wcm pull` round trip: a real server seeded with the demo fixture, pulled through the CLI into a
 * fixture, that fixture served by a second server: every list (every page, with its filters) and
 * every get answers the same on both. In the postgres project both servers keep their records in
 * PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { compareWorkspace, NOT_COMPARED, proxy, READ_OPERATIONS } from '../support/pull.js';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';

/** The demo workspace's threads and bookings (fixtures/demo.json; counted, so a demo record added keeps these true). */
const inWs1 = (kind: 'threads' | 'bookings') =>
  (JSON.parse(readFileSync(DEMO, 'utf8'))[kind] as Array<{ workspace_id: string }>).filter(
    (r) => r.workspace_id === demo.ws1,
  ).length;
const WS1_THREADS = inWs1('threads');
const WS1_BOOKINGS = inWs1('bookings');

type Server = Awaited<ReturnType<typeof onPort>>;

async function pull(base: string, token: string, args: string[], dir: string) {
  return runInProcess(['pull', '--workspace', demo.ws1, ...args], {
    env: { WCM_BASE_URL: base, WCM_TOKEN: token, WCM_CONFIG_DIR: path.join(dir, 'cfg') },
  });
}
const tokenOf = (file: string) => JSON.parse(readFileSync(file, 'utf8')).tokens[0].token as string;

describe('wcm pull: round trip', () => {
  let source: Server;
  let copy: Server;
  let tmp: ReturnType<typeof tempDir>;
  let file: string;
  let result: Awaited<ReturnType<typeof pull>>;

  beforeAll(async () => {
    tmp = tempDir('wcm-pull-');
    source = await onPort();
    file = path.join(tmp.dir, 'acme.json');
    result = await pull(source.url, demo.owner, ['--output', file, '--json'], tmp.dir);
    copy = await onPort({ fixtures: [file] });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([source?.close(), copy?.close()]);
    tmp?.cleanup();
  });

  it('copies every collection and says so', () => {
    expect(result.code, result.stderr).toBe(0);
    const s = JSON.parse(result.stdout);
    expect(s.workspace).toEqual({ id: demo.ws1, name: 'Acme Coffee' });
    for (const c of s.collections) expect(c.status, c.name).toBe('copied');
    expect(s.collections.find((c: { name: string }) => c.name === 'threads').count).toBe(WS1_THREADS);
    expect(s.next).toBe(`wcm serve --seed ${file} --data ${file.replace(/\.json$/, '')}.store.json`);
    expect(s.made.token).toMatch(/^wcm_pat_[A-Za-z0-9]{32,}$/);
  });

  it('writes no user, token or OAuth state of the source: one made owner and token', () => {
    const f = JSON.parse(readFileSync(file, 'utf8'));
    expect(f.users).toEqual([{ id: 'usr_local_owner', name: 'Local owner', email: 'owner@example.invalid' }]);
    expect(f.workspaces).toHaveLength(1);
    expect(f.tokens).toHaveLength(1);
    expect(f.tokens[0].abilities).toHaveLength(7);
    expect(f.oauth_apps).toBeUndefined();
    expect(JSON.stringify(f)).not.toContain('usr_ada');
    expect(JSON.stringify(f)).not.toContain(demo.ws2);
  });

  it('every list and get operation answers the same on both servers, across every page', async () => {
    const seen = await compareWorkspace(
      { base: source.url, token: demo.owner },
      { base: copy.url, token: tokenOf(file) },
      demo.ws1,
    );
    // Every read of the contract is compared but the few a pull does not carry over (and says so).
    expect(READ_OPERATIONS.filter((op) => !seen.has(op) && !(op in NOT_COMPARED))).toEqual([]);
  }, 60_000);
});

describe('wcm pull: a server with only the seed contract reads', () => {
  it('copies what those operations show, makes the rest so the lists answer the same, and names what it could not read', async () => {
    const tmp = tempDir('wcm-pull-');
    const source = await onPort();
    const SEED_READS = [
      /^\/workspaces\/[^/]+\/lists$/,
      /^\/workspaces\/[^/]+\/knowledge-lists\/[^/]+\/articles$/,
      /^\/workspaces\/[^/]+\/threads$/,
      /^\/workspaces\/[^/]+\/bookings$/,
      /^\/workspaces\/[^/]+\/voice-interactions$/,
    ];
    const seedOnly = await proxy(source.url, {
      allow: (r) => r.method === 'GET' && SEED_READS.some((p) => p.test(r.path)),
    });
    let copy: Server | undefined;
    try {
      const file = path.join(tmp.dir, 'seed-only.json');
      const r = await pull(
        seedOnly.url,
        demo.owner,
        ['--output', file, '--json', '--knowledge-list', demo.knowledgeList],
        tmp.dir,
      );
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      const status = Object.fromEntries(s.collections.map((c: any) => [c.name, c]));
      expect(status.forms).toMatchObject({ status: 'skipped', reason: 'this server does not have `listForms`' });
      expect(status.offers.status).toBe('skipped');
      expect(status.threads.status).toBe('partial');
      expect(status.threads.reason).toContain('getThread');
      expect(status.listings.status).toBe('partial');
      expect(status.knowledge_lists.status).toBe('partial');
      expect(status.bookings).toMatchObject({ status: 'copied', count: WS1_BOOKINGS });
      expect(status.voice_interactions).toMatchObject({ status: 'copied', count: 16 });
      expect(status.threads.count).toBe(WS1_THREADS);
      expect(s.workspace.name).toBe('Pulled workspace');
      expect(s.notes.join('\n')).toContain('/me');
      // The OpenAPI document was asked for once; then each extension was tried once, on first use.
      const tried = (p: RegExp) => seedOnly.requests.filter((q) => p.test(q.path)).length;
      expect(tried(/^\/openapi\.json$/)).toBe(1);
      expect(tried(/^\/workspaces\/[^/]+\/threads\/[^/]+$/)).toBeLessThanOrEqual(4);

      copy = await onPort({ fixtures: [file] });
      const token = tokenOf(file);
      const w = `/workspaces/${demo.ws1}`;
      const same = async (p: string) => {
        const [a, b] = await Promise.all(
          [
            [seedOnly.url, demo.owner],
            [copy!.url, token],
          ].map(async ([base, tok]) => {
            const out: unknown[] = [];
            let cursor: string | null = null;
            do {
              const res = await fetch(
                `${base}${p}${p.includes('?') ? '&' : '?'}limit=9${cursor ? `&cursor=${cursor}` : ''}`,
                {
                  headers: { authorization: `Bearer ${tok}` },
                },
              );
              const body = (await res.json()) as any;
              out.push(...body.data);
              cursor = body.meta.next_cursor;
            } while (cursor);
            return JSON.parse(JSON.stringify(out).replace(/"dashboard_url":"https?:\/\/[^/"]+/g, '"dashboard_url":"O'));
          }),
        );
        expect(b, p).toEqual(a);
      };
      for (const view of ['inbox', 'unread', 'starred', 'closed']) await same(`${w}/threads?view=${view}`);
      await same(`${w}/threads?view=inbox&channel=email`);
      await same(`${w}/lists`);
      await same(`${w}/bookings`);
      await same(`${w}/voice-interactions`);
    } finally {
      await Promise.all([seedOnly.close(), source.close(), copy?.close()]);
      tmp.cleanup();
    }
  }, 60_000);
});
