import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';
import { onTerminal } from '../support/terminal.js';

// Tables on a real pseudo-terminal (util-linux `script`) of 80, 100 and 160 columns: the pty reports
// no size, so the binary takes COLUMNS, as it would from a terminal that sets it. No table line may
// be wider than the terminal (a terminal would wrap it mid-id), and every id stays whole.
const tmp = tempDir('wcm-width-');
const cfg = path.join(tmp.dir, 'config');
let serve: Awaited<ReturnType<typeof spawnServe>>;
beforeAll(async () => {
  // `wcm serve` saves profile `local` with the admin token, which `wcm logs` needs.
  serve = await spawnServe(['--data', path.join(tmp.dir, 'store.json'), '--seed', DEMO], {
    env: { WCM_CONFIG_DIR: cfg },
  });
});
afterAll(async () => {
  serve?.proc.kill('SIGTERM');
  await serve?.proc;
  tmp.cleanup();
});

const env = { WCM_CONFIG_DIR: cfg, WCM_WORKSPACE: demo.ws1, WCM_BASE_URL: undefined, WCM_TOKEN: undefined };
/** The ids a command lists, from its piped `--json`. */
async function ids(args: string[], key: string): Promise<string[]> {
  const r = await wcm([...args, '--json'], { env });
  expect(r.exitCode, r.stderr).toBe(0);
  const out = r.stdout.trim();
  const rows = (out.startsWith('[') ? JSON.parse(out) : out.split('\n').map((l) => JSON.parse(l))) as Array<
    Record<string, string>
  >;
  return rows.map((x) => x[key]);
}

describe.each([80, 100, 160])('at %i columns', (width) => {
  it.each([
    [['threads', 'ls'], 'id'],
    [['voice', 'ls'], 'id'],
    [['logs', '--limit', '20'], 'request_id'],
  ])('%j: no line wider than the terminal, every id whole', async (args, key) => {
    const expected = await ids(args, key);
    expect(expected.length).toBeGreaterThan(0);
    const t = onTerminal(args, { ...env, COLUMNS: String(width) });
    const r = await t.proc;
    expect(r.exitCode, t.screen()).toBe(0);
    const lines = t
      .screen()
      .replace(/\r/g, '')
      .split('\n')
      .filter((l) => l && !l.startsWith('→ ')); // the target line goes to stderr
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(width);
    // `wcm logs` lists the newest 20 at the time it runs: the JSON run before it is among them.
    const shown = expected.filter((id) => t.screen().includes(id));
    expect(shown.length).toBeGreaterThanOrEqual(key === 'id' ? expected.length : 1);
    if (width < 160) expect(t.screen()).toContain('…');
  });
});
