// `wcm bookings` through the run(options, factory) seam: flags become the request, bad ones are refused
// before any request. The same command against the real server: engagement.server.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import bookingsLs from '../../commands/bookings/ls.js';
import { UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

let h: SeamHarness;
beforeEach(async () => {
  h = await seamHarness();
});
afterEach(() => h.close());

describe('wcm bookings ls (run seam)', () => {
  it('--status, --from and --to become status, from and to; a bare date is midnight UTC', async () => {
    expect(await h.run(bookingsLs, { status: 'confirmed', from: '2026-11-01', to: '2026-12-01T09:30:00+01:00' })).toBe(
      0,
    );
    expect(h.request()).toEqual({
      method: 'GET',
      path: `/workspaces/${SEAM_WS}/bookings`,
      query: { status: 'confirmed', from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T08:30:00.000Z' },
    });
  });

  it('--from after --to is a usage error naming both, and nothing is sent', async () => {
    const err = await h.run(bookingsLs, { from: '2026-12-02', to: '2026-12-01' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('`--from` (2026-12-02) is after `--to` (2026-12-01)');
    expect(h.stub.requests).toHaveLength(0);
  });

  it('a --from that is not a date is a usage error naming the flag, and nothing is sent', async () => {
    const err = await h.run(bookingsLs, { from: 'next tuesday' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('--from');
    expect(h.stub.requests).toHaveLength(0);
  });
});
