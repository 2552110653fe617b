import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, type RouteHandler, type Routes } from '../../src/server/app.js';
import { listen, type RunningServer } from '../../src/server/http.js';
import { ProblemError } from '../../src/server/problems.js';
import { Store } from '../../src/store/json/store.js';
import { sendJson } from '../support/server.js';
import { fileEngine } from '../support/seed-store.js';

// Parts of the server outside /v1 (OAuth, MCP, control plane, dashboard) add routes and mounts
// (a whole subtree) to the App's one router.
const echo: RouteHandler = ({ req, info }) => {
  if (req.url.includes('fail')) throw new ProblemError('not_found', { detail: 'nothing here' });
  return {
    status: 200,
    headers: { 'Content-Type': 'text/plain', 'X-Request-Id': info.id },
    body: `${req.method} ${info.path} ${info.origin}`,
  };
};
const sse: RouteHandler = () => ({
  status: 200,
  headers: { 'Content-Type': 'text/event-stream' },
  body: '',
  stream(res) {
    res.write('data: one\n\n');
    setTimeout(() => res.end('data: two\n\n'), 20);
  },
});
const routes: Routes = (r) => r.mount('/x', echo).on('GET', '/stream', sse);

let store: Store | undefined;
let running: RunningServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await running?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  running = store = dir = undefined;
});

async function app(): Promise<App> {
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-mounts-'));
  store = await Store.open(path.join(dir, 'store.json'));
  return new App({ db: fileEngine(store), routes: [routes] });
}

describe('mounts', () => {
  it.each([
    ['/x', 200],
    ['/x/y?z=1', 200],
    ['/xy', 404],
    ['/v1/x', 404],
  ])('%s answers %i', async (url, status) => {
    const a = await app();
    const res = await sendJson(a, { url });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.body).toBe(`GET ${url.split('?')[0]} http://localhost`);
    if (status === 404) expect(res.json.code).toBe('route_not_found');
  });

  it('a ProblemError thrown by a mount becomes problem+json with the request id', async () => {
    const a = await app();
    const res = await sendJson(a, { url: '/x/fail', headers: { 'x-request-id': 'req_mount_1' } });
    expect(res.status).toBe(404);
    expect(res.headers['Content-Type']).toMatch(/problem\+json/);
    expect(res.json).toMatchObject({
      code: 'not_found',
      detail: 'nothing here',
      request_id: 'req_mount_1',
      instance: '/x/fail',
    });
  });

  it('a streamed response reaches a real socket piece by piece', async () => {
    running = await listen(await app(), { port: 0 });
    const res = await fetch(`http://127.0.0.1:${running.port}/stream`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('data: one\n\ndata: two\n\n');
  });
});
