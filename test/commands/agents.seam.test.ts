// `wcm agents` through the run(options, factory) seam: flags become the request, bad ones are refused
// before any request. Against the real server: finding.server.test.ts (ls) and public.server.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import agentsLs from '../../commands/agents/ls.js';
import agentsOpened from '../../commands/agents/opened.js';
import { UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

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

it('agents opened AGENT --button --app: a public POST of {button, app} with the key given, and no token', async () => {
  const agent = '78877ec3-e7f9-4eb3-b628-2184a18c24a4';
  const button = '11111111-1111-4111-8111-111111111111';
  const app = '22222222-2222-4222-8222-222222222222';
  await h.close();
  h = await seamHarness(() =>
    record({
      id: 'e1',
      type: 'agent_chat_opened',
      agent_id: agent,
      button_id: button,
      app_id: app,
      occurred_at: 'now',
    }),
  );
  expect(await h.run(agentsOpened, { args: [agent], button, app, idempotencyKey: 'visit-7f3a2c91' })).toBe(0);
  expect(h.request()).toEqual({ method: 'POST', path: `/public/agents/${agent}/analytics-events/opened`, query: {} });
  expect(h.body()).toEqual({ button, app });
  expect(h.stub.requests[0].headers['idempotency-key']).toBe('visit-7f3a2c91');
  expect(h.stub.requests[0].headers.authorization).toBeUndefined();
  await h.run(agentsOpened, { args: [agent] });
  expect(h.body(1)).toEqual({});
  const key = h.stub.requests[1].headers['idempotency-key'] as string;
  expect(h.io.err()).toContain(
    `idempotency key: ${key} (to replay: wcm agents opened ${agent} --idempotency-key ${key})`,
  );
});
