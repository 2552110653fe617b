import { describe, expect, it } from 'vitest';
import open from '../../commands/open.js';
import { UsageError } from '../../src/cli/errors.js';
import { demo } from '../support/server.js';
import { SEAM_WS, seamHarness } from './harness.js';

describe('wcm open through the run(options, factory) seam', () => {
  it('asks the server nothing: the address is built from the target (origin + /dashboard) and the workspace', async () => {
    const h = await seamHarness();
    try {
      expect(await h.run(open, { args: ['Voice'] })).toBe(0);
      expect(await h.run(open, { args: [] }, { workspace: demo.ws1 })).toBe(0);
      expect(h.io.out()).toBe(
        `${h.stub.url}/dashboard/workspaces/${SEAM_WS}/voice\n${h.stub.url}/dashboard/workspaces/${demo.ws1}\n`,
      );
      expect(h.stub.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });

  it('a --base-url under a path prefix still opens the dashboard at the origin; a bad TARGET prints nothing', async () => {
    const h = await seamHarness();
    try {
      await h.run(open, { args: ['listings'] }, { baseUrl: 'https://wcm.example/api/v1' });
      expect(h.io.out()).toBe(`https://wcm.example/dashboard/workspaces/${SEAM_WS}/lists\n`);
      const err = await h.run(open, { args: ['lists/1'] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe('`lists/1` is neither a record id (a UUID) nor a dashboard section.');
      expect(h.io.out()).toBe(`https://wcm.example/dashboard/workspaces/${SEAM_WS}/lists\n`);
    } finally {
      await h.close();
    }
  });
});
