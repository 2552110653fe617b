// The agent configurations the README and docs/mcp.md give are valid JSON that pin a profile, and
// the page about MCP recommends the Inspector that is current, saying what the pinned one the tests
// drive (test/support/inspector.mjs, fetched on first use) prints when it is an older, deprecated major.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INSPECTOR_CLI, INSPECTOR_VERSION, inspector } from '../support/inspector.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

/** Every ```json block of a page that configures MCP servers, parsed. */
function mcpConfigs(
  page: string,
): Array<{ mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> }> {
  return [...read(page).matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((block) => block.includes('"mcpServers"'))
    .map((block) => JSON.parse(block));
}

describe('MCP configuration snippets', () => {
  it.each(['README.md', 'docs/mcp.md'])(
    '%s: every agent configuration runs `wcm mcp` with WCM_PROFILE pinned',
    (page) => {
      const configs = mcpConfigs(page);
      expect(configs.length).toBeGreaterThan(0);
      for (const config of configs)
        for (const server of Object.values(config.mcpServers)) {
          expect(server.args.at(-1)).toBe('mcp');
          expect(server.env?.WCM_PROFILE).toBe('local');
        }
    },
  );

  it('docs/mcp.md recommends the current Inspector, and says the pinned v1 the tests drive is deprecated', async () => {
    const page = read('docs/mcp.md');
    expect(page).toContain('npx @modelcontextprotocol/inspector@latest --cli wcm mcp');
    const dir = await inspector();
    const installed = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      version: string;
      engines?: { node?: string };
    };
    expect(installed.version).toBe(INSPECTOR_VERSION);
    expect(page).toContain(`\`@modelcontextprotocol/inspector@${INSPECTOR_VERSION}\``);
    expect(page).toContain(`Node ${installed.engines?.node?.replace(/^>=/, '')} or later`);
    const cli = readFileSync(path.join(dir, INSPECTOR_CLI), 'utf8');
    const notice = /@modelcontextprotocol\/inspector v(\d+) is deprecated/.exec(cli);
    if (notice) {
      expect(installed.version.split('.')[0]).toBe(notice[1]);
      expect(page).toContain(`v${notice[1]} (${installed.version})`);
      expect(page).toContain(notice[0]);
    }
  }, 300_000);
});
