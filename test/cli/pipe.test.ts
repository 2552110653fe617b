import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/server.js';

describe('output into a pipe the reader closes early (`wcm … | head`)', () => {
  it('stops quietly with exit 0, no stack trace', async () => {
    // `wcm openapi` prints the whole document (well over a pipe buffer); the reader goes at once.
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/wcm.js'), 'openapi'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
