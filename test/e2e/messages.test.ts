import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

// Messages through the built binary that say what happened in the CLI's own terms: an injected
// fault says it is one, a bad fault flag names the flag, a --set value typed as a number says how
// to send it as text. (The OAuth renewal's wording: test/e2e/token-renewal.test.ts.)
const tmp = tempDir('wcm-messages-');
const cfg = path.join(tmp.dir, 'config');
let serve: Awaited<ReturnType<typeof spawnServe>>;
beforeAll(async () => {
  // `wcm serve` saves profile `local` (token and admin token) in cfg.
  serve = await spawnServe(['--data', path.join(tmp.dir, 'store.json'), '--seed', DEMO], {
    env: { WCM_CONFIG_DIR: cfg },
  });
});
afterAll(async () => {
  serve?.proc.kill('SIGTERM');
  await serve?.proc;
  tmp.cleanup();
});
const env = { WCM_CONFIG_DIR: cfg, WCM_WORKSPACE: demo.ws1, WCM_RETRIES: '0' };
const run = (args: string[]) => wcm(args, { env });
/** stderr's lines, trimmed. */
const lines = (s: string) => s.split('\n').map((l) => l.trim());

describe('fault rules', () => {
  it("an unknown --operation is exit 2 naming --operation (not the rule list's `0.operation`); nothing is set", async () => {
    const r = await run(['local', 'faults', 'add', '--operation', 'listThreadz', '--status', '503']);
    expect(r.exitCode).toBe(2);
    expect(lines(r.stderr)[0]).toBe('Error: `--operation listThreadz` is not an operationId.');
    expect(r.stderr).toContain('`listThreads`');
    expect(r.stderr).not.toContain('0.operation');
    expect((await run(['local', 'faults', 'ls', '--json'])).stdout.trim()).toBe('[]');
  });

  it.each([
    [['--status', '404'], 'Error: `--status` must be one of 429, 500, 502, 503; received `404`.'],
    [['--status', '503', '--probability', '2'], 'Error: `--probability` must be from 0 to 1; received `2`.'],
    [
      ['--latency', '1.5'],
      'Error: `--latency` must be a whole number of milliseconds from 0 to 60000; received `1.5`.',
    ],
    [[], 'Error: A fault needs `--status`, `--latency` or `--drop`.'],
  ])('%j: exit 2, the flag named', async (flags, message) => {
    const r = await run(['local', 'faults', 'set', '--operation', 'listThreads', ...flags]);
    expect(r.exitCode).toBe(2);
    expect(lines(r.stderr)[0]).toBe(message);
  });

  it('an injected 503 says it is an injected fault, not a server shutting down', async () => {
    expect((await run(['local', 'faults', 'set', '--operation', 'listThreads', '--status', '503'])).exitCode).toBe(0);
    try {
      const r = await run(['threads', 'ls']);
      expect(r.exitCode).toBe(1);
      const said = lines(r.stderr);
      expect(said[0]).toBe('Error: Injected fault (503 service_unavailable)');
      expect(said).toContain(
        "Injected by the emulator's fault rules for `listThreads` (`wcm local faults clear` removes them).",
      );
      expect(said).toContain(
        '→ A fault rule of this local server answered 503; nothing failed for real. `wcm local faults ls` shows the rules, `wcm local faults clear` removes them.',
      );
      expect(r.stderr).not.toContain('shutting down');
    } finally {
      await run(['local', 'faults', 'clear']);
    }
  });
});

describe('--set typed values', () => {
  it('a 422 on a member --set typed as a number says how to send it as text', async () => {
    const r = await run(['pages', 'update', demo.pageAcme, '--set', 'display_name=2026']);
    expect(r.exitCode).toBe(3);
    expect(lines(r.stderr)).toContain(
      '→ `--set display_name=2026` sent the number 2026; to send the text "2026", quote it as JSON: --set \'display_name="2026"\'. Fix the fields listed in `errors` and retry.',
    );
    // The hint works as written.
    const fixed = await run(['pages', 'update', demo.pageAcme, '--set', 'display_name="2026"', '--json']);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout).display_name).toBe('2026');
  });

  it('forms update --set gets the same hint', async () => {
    const r = await run(['forms', 'update', demo.formCatering, '--set', 'name=true']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(
      '`--set name=true` sent the boolean true; to send the text "true", quote it as JSON: --set \'name="true"\'.',
    );
  });
});
