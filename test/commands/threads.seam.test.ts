// `wcm threads` through the run(options, factory) seam: flags become the request, bad ones are refused
// before any request. The same commands against the real server: engagement.server.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import threadsLs from '../../commands/threads/ls.js';
import threadsShow from '../../commands/threads/show.js';
import { UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness();
});
afterEach(() => h.close());

describe('wcm threads ls (run seam)', () => {
  it('--view, --channel and --search become view, channel and q on listThreads of the workspace', async () => {
    expect(await h.run(threadsLs, { view: 'unread', channel: 'whatsapp', search: 'order 4821' })).toBe(0);
    expect(h.stub.requests).toHaveLength(1);
    expect(h.request()).toEqual({
      method: 'GET',
      path: `/workspaces/${SEAM_WS}/threads`,
      query: { view: 'unread', channel: 'whatsapp', q: 'order 4821' },
    });
  });

  it('no flags: no query at all (the server picks the inbox and its page size)', async () => {
    await h.run(threadsLs);
    expect(h.request().query).toEqual({});
  });

  it('--all asks for pages of 100; --limit and --cursor pass through', async () => {
    await h.run(threadsLs, { all: true });
    expect(h.request(0).query).toEqual({ limit: '100' });
    await h.run(threadsLs, { limit: '7', cursor: 'abc' });
    expect(h.request(1).query).toEqual({ limit: '7', cursor: 'abc' });
  });

  it('a --search over 200 characters is a usage error naming the flag, and nothing is sent', async () => {
    const err = await h.run(threadsLs, { search: 'x'.repeat(201) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('`--search` is at most 200 characters; received 201');
    expect(h.stub.requests).toHaveLength(0);
  });
});

describe('wcm threads show (run seam)', () => {
  const THREAD = 'F7370231-E577-49DB-81DB-7FA0EC8F8FC9';

  it('gets that thread of the workspace', async () => {
    await h.run(threadsShow, { args: [THREAD] }, { json: true });
    expect(h.request()).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/threads/${THREAD}`, query: {} });
  });

  it("--web sends nothing and prints the thread's dashboard address (id lower-cased) when piped", async () => {
    expect(await h.run(threadsShow, { args: [THREAD], web: true })).toBe(0);
    expect(h.stub.requests).toHaveLength(0);
    expect(h.io.out()).toBe(`${h.stub.url}/dashboard/workspaces/${SEAM_WS}/threads/${THREAD.toLowerCase()}\n`);
  });
});
