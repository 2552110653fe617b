// `--json a,b.c` and `--jq EXPR` (issue 24) against the real server; bad input sends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpStub } from '../client/stubs.js';
import { runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let cfg: ReturnType<typeof tempDir>;
beforeAll(async () => {
  server = await onPort();
  cfg = tempDir('wcm-fields-');
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});
const env = () => ({
  WCM_CONFIG_DIR: cfg.dir,
  WCM_BASE_URL: server.url,
  WCM_TOKEN: demo.owner,
  WCM_WORKSPACE: demo.ws1,
});
const run = (args: string[], e: Record<string, string> = env()) => runInProcess(args, { env: e });

describe('--json fields', () => {
  it('on a list: only those fields of each record, dotted paths into objects', async () => {
    const r = await run(['threads', 'ls', '--limit', '3', '--json', 'id,contact.name']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['contact', 'id']);
      expect(Object.keys(row.contact)).toEqual(['name']);
    }
  });

  it('on a single record, and with --json=fields; plain --json still prints the whole data', async () => {
    const one = await run(['threads', 'show', demo.newestThread, '--json=subject,status']);
    expect(JSON.parse(one.stdout)).toEqual({ subject: 'Large order for Friday', status: 'open' });
    const whole = await run(['threads', 'show', demo.newestThread, '--json']);
    expect(JSON.parse(whole.stdout).messages).toHaveLength(3);
    const first = await run(['--json', 'threads', 'show', demo.newestThread]);
    expect(JSON.parse(first.stdout).id).toBe(demo.newestThread);
  });

  it('an unknown field is exit 2 naming it and listing the fields, and nothing is sent', async () => {
    const stub = await httpStub(() => ({
      status: 200,
      body: { data: [], meta: { request_id: 'r', next_cursor: null } },
    }));
    try {
      const r = await run(['threads', 'ls', '--json', 'id,subjct'], { ...env(), WCM_BASE_URL: stub.base });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('`subjct`');
      expect(r.stderr).toContain('last_message_preview');
      expect(stub.requests).toHaveLength(0);
    } finally {
      await stub.close();
    }
  });
});

describe('--jq', () => {
  it('filters the JSON output in-process; strings print raw', async () => {
    const r = await run(['threads', 'ls', '--limit', '2', '--jq', '.[].subject']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Large order for Friday\nSubscription delivery day\n');
  });

  it('over --all: the whole list', async () => {
    const r = await run(['threads', 'ls', '--all', '--jq', 'length']);
    const api = await fetch(`${server.url}/workspaces/${demo.ws1}/threads?limit=100`, {
      headers: { authorization: `Bearer ${demo.owner}` },
    }).then((x) => x.json());
    expect(r.stdout.trim()).toBe(String(api.data.length));
  });

  it('with --json fields: jq sees the chosen fields', async () => {
    const r = await run(['threads', 'ls', '--limit', '1', '--json', 'id', '--jq', '.[0] | keys | join(",")']);
    expect(r.stdout.trim()).toBe('id');
  });

  it('a filter that does not compile is exit 2 and nothing is sent', async () => {
    const stub = await httpStub(() => ({
      status: 200,
      body: { data: [], meta: { request_id: 'r', next_cursor: null } },
    }));
    try {
      const r = await run(['threads', 'ls', '--jq', '.[ | nope'], { ...env(), WCM_BASE_URL: stub.base });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--jq');
      expect(stub.requests).toHaveLength(0);
    } finally {
      await stub.close();
    }
  });

  it("a runtime error of the filter is exit 1 with jq's message", async () => {
    const r = await run(['threads', 'ls', '--limit', '1', '--jq', '.[0].subject | tonumber']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--jq/);
  });
});
