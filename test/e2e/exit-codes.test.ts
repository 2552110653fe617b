import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpStub } from '../client/stubs.js';
import { wcm } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

// Exit codes through the built binary: `wcm open` of an id nothing has is 5 (not found) and opens
// nothing; `wcm api --input` with a body that is not JSON is 2 (usage) and sends nothing.
let server: Awaited<ReturnType<typeof onPort>>;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  server = await onPort();
  tmp = tempDir();
  env = {
    WCM_BASE_URL: server.url,
    WCM_TOKEN: demo.owner,
    WCM_WORKSPACE: demo.ws1,
    WCM_CONFIG_DIR: path.join(tmp.dir, 'config'),
    BROWSER: 'none',
  };
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});
const dash = () => `${new URL(server.url).origin}/dashboard/workspaces/${demo.ws1}`;

describe('wcm open', () => {
  it('an id that no record has: exit 5, nothing printed on stdout', async () => {
    const id = '0b9f8a3e-1111-4c2d-9e8f-123456789abc';
    const r = await wcm(['open', id], { env });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `Nothing in workspace ${demo.ws1} has the id ${id}: no listing, thread, form, page, knowledge list or article.`,
    );
  });

  it('an id of another workspace is not found either (exit 5)', async () => {
    const r = await wcm(['open', demo.formCatering], { env: { ...env, WCM_WORKSPACE: demo.ws2 } });
    expect(r.exitCode).toBe(5);
  });

  it.each([
    ['a thread', demo.newestThread],
    ['a form', demo.formCatering],
    ['a page', demo.pageAcme],
    ['a knowledge list', demo.knowledgeList],
    ['an article', demo.article3Versions],
  ])('%s: exit 0, the address printed', async (_what, id) => {
    const r = await wcm(['open', id.toUpperCase()], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${dash()}/open/${id}`);
  });
});

describe('wcm api --input with a body that is not JSON', () => {
  it('exits 2 and sends no request', async () => {
    const stub = await httpStub(() => ({ status: 201, body: { data: {} } }));
    try {
      writeFileSync(path.join(tmp.dir, 'bad.json'), '{"title": "FAQ",');
      const r = await wcm(['api', '-X', 'POST', '/workspaces/{workspace}/lists', '--input', 'bad.json'], {
        env: { ...env, WCM_BASE_URL: stub.base },
        cwd: tmp.dir,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`\`--input\`: ${path.join(tmp.dir, 'bad.json')} is not valid JSON (`);
      expect(r.stderr).toContain('nothing was sent');
      const piped = await wcm(['api', '-X', 'POST', '/workspaces/{workspace}/lists', '--input', '-'], {
        env: { ...env, WCM_BASE_URL: stub.base },
        input: 'title=FAQ',
      });
      expect(piped.exitCode).toBe(2);
      expect(piped.stderr).toContain('`--input`: standard input is not valid JSON');
      expect(stub.requests).toHaveLength(0);
      // With a Content-Type that is not JSON the body goes as is.
      const text = await wcm(
        ['api', '-X', 'POST', '/workspaces/{workspace}/lists', '--input', 'bad.json', '-H', 'Content-Type: text/plain'],
        { env: { ...env, WCM_BASE_URL: stub.base }, cwd: tmp.dir },
      );
      expect(text.exitCode, text.stderr).toBe(0);
      expect(stub.requests.map((q) => q.body)).toEqual(['{"title": "FAQ",']);
    } finally {
      await stub.close();
    }
  });
});
