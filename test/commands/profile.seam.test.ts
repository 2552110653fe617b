// `wcm profile ls / use` through the run(options, factory) seam: what they read from and write to the
// config file; neither sends a request. Against the real server: auth.server.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import profileLs from '../../commands/profile/ls.js';
import profileUse from '../../commands/profile/use.js';
import { ProfileStore } from '../../src/cli/config.js';
import { CliError, UsageError } from '../../src/cli/errors.js';
import { SEAM_WS, seamHarness, type SeamHarness } from './harness.js';

let h: SeamHarness;
afterEach(async () => {
  expect(h.stub.requests).toHaveLength(0);
  await h.close();
});
const profiles = () => ProfileStore.open(h.env);
const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as Error;

describe('wcm profile ls / use (run seam)', () => {
  it('ls: sorted rows, the current one marked, whether each holds a token, never the token', async () => {
    h = await seamHarness();
    const p = await profiles();
    await p.set('zeta', { base_url: 'http://127.0.0.1:1/v1', token: 'wcm_pat_secret' });
    await p.set('alpha', { base_url: 'http://127.0.0.1:2/v1', workspace: SEAM_WS });
    await p.use('zeta');
    expect(await h.run(profileLs)).toBe(0);
    expect(h.io.out()).toBe(`\talpha\thttp://127.0.0.1:2/v1\t${SEAM_WS}\tno\n*\tzeta\thttp://127.0.0.1:1/v1\t\tyes\n`);
    await h.run(profileLs, {}, { json: true });
    expect(h.io.out()).not.toContain('wcm_pat_secret');
  });

  it('use NAME makes it current; an unknown NAME is a usage error naming the known ones', async () => {
    h = await seamHarness();
    await (await profiles()).set('alpha', { base_url: 'http://127.0.0.1:2/v1' });
    await (await profiles()).set('beta', { base_url: 'http://127.0.0.1:3/v1' });
    expect(await h.run(profileUse, { args: ['beta'] })).toBe(0);
    expect((await profiles()).current()).toBe('beta');
    const err = await failure(h.run(profileUse, { args: ['gamma'] }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('Profile `gamma` does not exist.');
    expect((err as CliError).hint).toBe('Known profiles: alpha, beta.');
    expect((await profiles()).current()).toBe('beta');
  });
});
