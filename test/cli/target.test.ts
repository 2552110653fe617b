import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/cli/config.js';
import { UsageError } from '../../src/cli/errors.js';
import { DEFAULT_BASE_URL, normalizeBaseUrl, resolveTarget } from '../../src/cli/target.js';
import { tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
let profiles: ProfileStore;
beforeEach(async () => {
  dir = tempDir('wcm-target-');
  profiles = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
  await profiles.set('default', { base_url: 'http://default.test/v1', token: 'tok-default', workspace: 'ws-default' });
  await profiles.set('staging', { base_url: 'http://staging.test/v1', token: 'tok-staging', workspace: 'ws-staging' });
});
afterEach(() => dir.cleanup());

const ENV = { WCM_BASE_URL: 'http://env.test/v1', WCM_TOKEN: 'tok-env', WCM_WORKSPACE: 'ws-env' };

describe('resolveTarget: flag, then environment, then the chosen profile, then the default profile', () => {
  it.each([
    [
      'the default profile alone',
      {},
      {},
      ['http://default.test/v1', 'tok-default', 'ws-default'],
      ['profile default', 'profile default', 'profile default'],
    ],
    [
      'environment over the default profile',
      {},
      ENV,
      ['http://env.test/v1', 'tok-env', 'ws-env'],
      ['WCM_BASE_URL', 'WCM_TOKEN', 'WCM_WORKSPACE'],
    ],
    [
      'flags over the environment',
      { baseUrl: 'http://flag.test/v1/', workspace: 'ws-flag' },
      ENV,
      ['http://flag.test/v1', 'tok-env', 'ws-flag'],
      ['--base-url', 'WCM_TOKEN', '--workspace'],
    ],
    [
      'WCM_PROFILE chooses the profile',
      {},
      { WCM_PROFILE: 'staging' },
      ['http://staging.test/v1', 'tok-staging', 'ws-staging'],
      ['profile staging', 'profile staging', 'profile staging'],
    ],
    [
      'environment values over the WCM_PROFILE profile',
      {},
      { ...ENV, WCM_PROFILE: 'staging' },
      ['http://env.test/v1', 'tok-env', 'ws-env'],
      ['WCM_BASE_URL', 'WCM_TOKEN', 'WCM_WORKSPACE'],
    ],
    [
      '--profile (a flag) over the environment',
      { profile: 'staging' },
      ENV,
      ['http://staging.test/v1', 'tok-staging', 'ws-staging'],
      ['profile staging', 'profile staging', 'profile staging'],
    ],
    [
      '--base-url and --workspace over --profile (same origin: the token goes)',
      { profile: 'staging', baseUrl: 'http://staging.test/api/v1', workspace: 'ws-flag' },
      ENV,
      ['http://staging.test/api/v1', 'tok-staging', 'ws-flag'],
      ['--base-url', 'profile staging', '--workspace'],
    ],
    // Issue 18: a profile token never goes to another origin; an explicit WCM_TOKEN does.
    [
      '--base-url of another origin than --profile: WCM_TOKEN, never the profile token',
      { profile: 'staging', baseUrl: 'http://flag.test/v1', workspace: 'ws-flag' },
      ENV,
      ['http://flag.test/v1', 'tok-env', 'ws-flag'],
      ['--base-url', 'WCM_TOKEN', '--workspace'],
    ],
    [
      '--base-url of another origin, no WCM_TOKEN: no token',
      { baseUrl: 'http://flag.test/v1' },
      {},
      // The profile's workspace belongs to its origin too (issue 48).
      ['http://flag.test/v1', undefined, undefined],
      [
        '--base-url',
        "withheld: profile default's token belongs to http://default.test",
        "none: profile default's workspace belongs to http://default.test",
      ],
    ],
    [
      'another port is another origin',
      { baseUrl: 'http://default.test:8080/v1' },
      {},
      ['http://default.test:8080/v1', undefined, undefined],
      [
        '--base-url',
        "withheld: profile default's token belongs to http://default.test",
        "none: profile default's workspace belongs to http://default.test",
      ],
    ],
    [
      '/api/v1 of the same origin is the same host',
      { baseUrl: 'http://default.test/api/v1' },
      {},
      ['http://default.test/api/v1', 'tok-default', 'ws-default'],
      ['--base-url', 'profile default', 'profile default'],
    ],
  ])('%s', (_name, flags, env, [baseUrl, token, workspace], [bs, ts, ws]) => {
    const t = resolveTarget(flags, env, profiles);
    expect([t.baseUrl, t.token, t.workspace]).toEqual([baseUrl, token, workspace]);
    expect([t.sources.baseUrl, t.sources.token, t.sources.workspace]).toEqual([bs, ts, ws]);
  });

  it('`wcm profile use` makes a profile the current one', async () => {
    await profiles.use('staging');
    expect(resolveTarget({}, {}, profiles).baseUrl).toBe('http://staging.test/v1');
  });

  it('falls back to the built-in base URL with no profile and no token', async () => {
    const empty = tempDir('wcm-target-empty-');
    try {
      const t = resolveTarget({}, {}, await ProfileStore.open({ WCM_CONFIG_DIR: empty.dir }));
      expect(t).toMatchObject({
        baseUrl: DEFAULT_BASE_URL,
        token: undefined,
        workspace: undefined,
        sources: { baseUrl: 'built-in default', token: 'none', workspace: 'none' },
      });
    } finally {
      empty.cleanup();
    }
  });

  it.each([
    [{ profile: 'nope' }, {}, /Profile `nope` \(from --profile\) does not exist/],
    [{}, { WCM_PROFILE: 'nope' }, /Profile `nope` \(from WCM_PROFILE\) does not exist/],
  ])('an unknown profile is a usage error naming where it came from', (flags, env, message) => {
    expect(() => resolveTarget(flags, env, profiles)).toThrowError(UsageError);
    expect(() => resolveTarget(flags, env, profiles)).toThrowError(message);
  });
});

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:4010/v1', 'http://127.0.0.1:4010/v1'],
    ['http://127.0.0.1:4010/v1/', 'http://127.0.0.1:4010/v1'],
    ['https://app.example.com/api/v1', 'https://app.example.com/api/v1'],
  ])('%s → %s', (raw, expected) => expect(normalizeBaseUrl(raw, '--base-url')).toBe(expected));

  it.each([
    ['not a url', /is not a URL/],
    ['ftp://x/v1', /must be http or https/],
    ['http://x/v2', /must end in \/v1/],
  ])('%s is refused', (raw, message) => expect(() => normalizeBaseUrl(raw, '--base-url')).toThrowError(message));
});
