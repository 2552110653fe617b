// `wcm agents` through the run(options, factory) seam: flags become the request, bad ones are refused
// before any request. Against the real server: finding.test.ts (ls) and public.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import agentsLs from '../../commands/agents/ls.js';
import agentsOpened from '../../commands/agents/opened.js';
import { UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness();
});
afterEach(() => h.close());

it('agents ls lists the agents of the workspace from WCM_WORKSPACE', async () => {
  expect(await h.run(agentsLs)).toBe(0);
  expect(h.request()).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/agents`, query: {} });
});

it('agents opened without AGENT is a usage error with an example, and nothing is sent', async () => {
  const err = await h.run(agentsOpened).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe('Missing AGENT.');
  expect(h.stub.requests).toHaveLength(0);
});
