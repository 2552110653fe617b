import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { App, type Middleware } from '../../src/server/app.js';
import { compose } from '../../src/server/chain.js';
import { ProblemError } from '../../src/server/problems.js';
import { Store } from '../../src/store/json/store.js';
import { DEMO, demo, sendJson, tempDir } from '../support/server.js';
import { fileEngine, seedStore } from '../support/seed-store.js';

// A cross-cutting concern is one middleware in the App's `use` list (chain.ts), nothing else.
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function appWith(use: Middleware[]): Promise<App> {
  const { dir, cleanup } = tempDir();
  const store = await Store.open(path.join(dir, 'store.json'));
  await seedStore(store, [DEMO]);
  close = async () => {
    await store.close();
    cleanup();
  };
  return new App({ db: fileEngine(store), use });
}

const workspaces = { url: `/v1/workspaces/${demo.ws1}/lists`, headers: { authorization: `Bearer ${demo.owner}` } };

describe('middleware chain', () => {
  it('compose runs steps in order around the last, each seeing what earlier ones added', async () => {
    const seen: string[] = [];
    const step =
      (name: string): Middleware =>
      async (x, next) => {
        seen.push(`>${name}`);
        const res = await next(x);
        seen.push(`<${name}`);
        return res;
      };
    const run = compose([step('a'), step('b')], async () => {
      seen.push('handler');
      return { status: 204, headers: {}, body: '' };
    });
    const res = await run({} as never);
    expect(res.status).toBe(204);
    expect(seen).toEqual(['>a', '>b', 'handler', '<b', '<a']);
  });

  it('a middleware sees the matched operation, adds response headers, and auth runs after it', async () => {
    const ops: string[] = [];
    const tag: Middleware = async (x, next) => {
      ops.push(`${x.op.operationId} auth=${x.auth === null ? 'none' : 'set'}`);
      x.headers['X-Seen'] = x.op.operationId;
      return next(x);
    };
    const app = await appWith([tag]);
    const res = await sendJson(app, workspaces);
    expect(res.status).toBe(200);
    expect(res.headers['X-Seen']).toBe('listListings');
    expect(res.headers['Cache-Control']).toBe('no-store');
    expect(ops).toEqual(['listListings auth=none']);
  });

  it('a middleware may answer alone, and what it throws becomes problem+json with its headers', async () => {
    const refuse: Middleware = async (x) => {
      x.headers['X-Counter'] = '0';
      throw new ProblemError('rate_limited', { detail: 'slow down', headers: { 'Retry-After': '7' } });
    };
    const res = await sendJson(await appWith([refuse]), {
      ...workspaces,
      headers: { ...workspaces.headers, 'x-request-id': 'req_chain_1' },
    });
    expect(res.status).toBe(429);
    expect(res.headers['Content-Type']).toMatch(/problem\+json/);
    expect(res.headers['Retry-After']).toBe('7');
    expect(res.headers['X-Counter']).toBe('0');
    expect(res.json).toMatchObject({ code: 'rate_limited', detail: 'slow down', request_id: 'req_chain_1' });
  });
});
