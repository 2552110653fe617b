// `wcm voice` through the run(options, factory) seam. The same command against the real server:
// engagement.server.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import voiceLs from '../../commands/voice/ls.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness();
});
afterEach(() => h.close());

it('voice ls --kind becomes kind on listVoiceInteractions of the workspace; without it, no query', async () => {
  expect(await h.run(voiceLs, { kind: 'call' })).toBe(0);
  expect(h.request(0)).toMatchObject({
    method: 'GET',
    path: `/workspaces/${SEAM_WS}/voice-interactions`,
    query: { kind: 'call' },
  });
  await h.run(voiceLs);
  expect(h.request(1).query).toEqual({});
});
