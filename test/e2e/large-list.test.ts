import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generatedPage } from '../bench/cli-memory.mjs';
import { httpStub } from '../client/stubs.js';
import { spawnServe, wcm } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const dirs: Array<ReturnType<typeof tempDir>> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));
const fresh = () => {
  const d = tempDir('wcm-large-');
  dirs.push(d);
  return d.dir;
};

const WS = 'a0000000-0000-4000-8000-000000000001';
const TOKEN = 'wcm_pat_largeListOwner0123456789abcdefghijklmno';
const uuid = (i: number) => `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('--all --json on a large list', () => {
  it('against the real server: 2,500 listings come back as one valid JSON array, newest first, no duplicates', async () => {
    const dir = fresh();
    const n = 2500;
    const fixture = {
      version: 1,
      users: [{ id: 'usr_big', name: 'Big', email: 'big@example.com' }],
      workspaces: [{ id: WS, name: 'Big', members: [{ user_id: 'usr_big', role: 'owner' }] }],
      tokens: [
        {
          token: TOKEN,
          user_id: 'usr_big',
          name: 'big',
          abilities: ['content:read', 'content:write'],
          expires_at: null,
        },
      ],
      listings: Array.from({ length: n }, (_, i) => ({
        id: uuid(i),
        workspace_id: WS,
        title: `Listing ${i}`,
        template_slug: 'faq',
        items: [],
        created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      })),
    };
    writeFileSync(path.join(dir, 'big.json'), JSON.stringify(fixture));
    const serve = await spawnServe(['--data', path.join(dir, 'store.json'), '--seed', path.join(dir, 'big.json')], {
      env: { WCM_CONFIG_DIR: path.join(dir, 'serve-config') },
    });
    try {
      const r = await wcm(['lists', 'ls', '--all', '--json'], {
        env: { WCM_CONFIG_DIR: fresh(), WCM_BASE_URL: serve.url, WCM_TOKEN: TOKEN, WCM_WORKSPACE: WS },
        timeout: 60_000,
      });
      expect(r.exitCode).toBe(0);
      const all = JSON.parse(r.stdout) as Array<{ id: string; title: string }>;
      expect(all).toHaveLength(n);
      expect(new Set(all.map((l) => l.id)).size).toBe(n);
      expect(all[0].title).toBe(`Listing ${n - 1}`);
      expect(all[n - 1].title).toBe('Listing 0');
    } finally {
      serve.proc.kill('SIGTERM');
      await serve.proc;
    }
  }, 120_000);

  it('from a page generator: 10,000 items make one JSON array in order, and `--json id,title` cuts each item to those fields', async () => {
    // The server is not the subject here: cursor = offset, the page size asked. How much memory
    // 100,000 items take next to 10,000 is a benchmark row (`npm run bench -- --only cli-memory`).
    const stub = await httpStub((req) => ({ status: 200, body: generatedPage(req.url) }));
    const total = 10_000;
    const run = async (json: string[]) => {
      const r = await wcm(['lists', 'ls', '--all', ...json], {
        env: {
          WCM_CONFIG_DIR: fresh(),
          WCM_BASE_URL: stub.base,
          WCM_TOKEN: 'wcm_pat_x',
          WCM_WORKSPACE: `${String(total).padStart(8, '0')}-0000-4000-8000-000000000000`,
        },
        timeout: 60_000,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      const items = JSON.parse(r.stdout) as Array<{ id: string }>;
      expect(items.map((i) => i.id)).toEqual(Array.from({ length: total }, (_, i) => `item-${i}`));
      return items;
    };
    try {
      expect(Object.keys((await run(['--json']))[0]).sort()).toEqual(['dashboard_url', 'id', 'title']);
      const picked = await run(['--json', 'id,title']);
      expect(picked.every((i) => Object.keys(i).sort().join() === 'id,title')).toBe(true);
    } finally {
      await stub.close();
    }
  }, 120_000);
});
