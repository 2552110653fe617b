// `wcm knowledge ls` through the run(options, factory) seam. Against the real server: finding.server.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import knowledgeLs from '../../commands/knowledge/ls.js';
import { UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness();
});
afterEach(() => h.close());

it("ls lists the workspace's knowledge lists; --limit and --cursor pass through, --all pages by 100", async () => {
  expect(await h.run(knowledgeLs)).toBe(0);
  expect(h.request(0)).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/knowledge-lists`, query: {} });
  await h.run(knowledgeLs, { limit: '100', cursor: 'k1' });
  expect(h.request(1).query).toEqual({ limit: '100', cursor: 'k1' });
  await h.run(knowledgeLs, { all: true, limit: '20' });
  expect(h.request(2).query).toEqual({ limit: '20' });
});

it.each([['101'], ['2.5'], ['ten']])('--limit %s is a usage error naming the flag; nothing is sent', async (limit) => {
  const err = await h.run(knowledgeLs, { limit }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe(`\`--limit\` must be an integer from 1 to 100; received \`${limit}\`.`);
  expect(h.stub.requests).toHaveLength(0);
});

it('no workspace: a usage error saying how to choose one; only GET /me is sent', async () => {
  await h.close();
  h = await seamHarness(undefined, { env: { WCM_WORKSPACE: undefined } });
  const err = await h.run(knowledgeLs).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe('No workspace chosen.');
  // The token's workspaces are asked for (one would be used); the list itself is never sent.
  expect(h.stub.requests.map((r) => r.url)).toEqual(['/v1/me']);
});
