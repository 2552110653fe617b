// The loopback half of `wcm auth login --web`, at unit level: the server side (oauth-server
// branch) was not ready, so discovery, the code exchange and saving are not exercised here.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, canOpenBrowser, listenForRedirect, pkcePair } from '../../src/cli/oauth-loopback.js';

const ISS = 'http://127.0.0.1:4999';

async function redirect(uri: string, q: Record<string, string>) {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
  const res = await fetch(u);
  return { status: res.status, text: await res.text() };
}

describe('the loopback redirect', () => {
  it('a matching state and iss hands over the code and answers "you can close this tab"', async () => {
    const l = await listenForRedirect({ state: 's1', issuer: ISS, timeoutMs: 5000 });
    expect(l.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const page = await redirect(l.redirectUri, { code: 'c1', state: 's1', iss: ISS });
    expect(page.status).toBe(200);
    expect(page.text).toContain('You can close this tab');
    await expect(l.result).resolves.toEqual({ code: 'c1' });
  });

  it.each([
    ['another state', { code: 'c', state: 'forged', iss: ISS }, /another `state`/],
    ['another issuer', { code: 'c', state: 's', iss: 'http://127.0.0.1:1' }, /names issuer `http:\/\/127\.0\.0\.1:1`/],
    ['no issuer', { code: 'c', state: 's' }, /names issuer `\(none\)`/],
    ['access_denied', { error: 'access_denied', state: 's', iss: ISS }, /refused the login: access_denied/],
    ['no code', { state: 's', iss: ISS }, /without a `code`/],
  ] as const)('%s: exit 4, no code', async (_name, q, message) => {
    const l = await listenForRedirect({ state: 's', issuer: ISS, timeoutMs: 5000 });
    const settled = l.result.then(
      () => null,
      (e: { exitCode: number; message: string }) => e,
    );
    await redirect(l.redirectUri, q);
    const err = await settled;
    expect(err?.exitCode).toBe(4);
    expect(err?.message).toMatch(message);
  });

  it('no answer in time: exit 1 saying so', async () => {
    const l = await listenForRedirect({ state: 's', issuer: ISS, timeoutMs: 200 });
    await expect(l.result).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('No answer from the browser within'),
    });
  });
});

describe('opening a browser', () => {
  it.each([
    ['a terminal with a display', { DISPLAY: ':0' }, true, 'linux', true],
    ['stdout piped', { DISPLAY: ':0' }, false, 'linux', false],
    ['BROWSER=none', { DISPLAY: ':0', BROWSER: 'none' }, true, 'linux', false],
    ['Linux without a display', {}, true, 'linux', false],
    ['$BROWSER set, without a display', { BROWSER: '/usr/local/bin/my-browser' }, true, 'linux', true],
    ['Wayland', { WAYLAND_DISPLAY: 'wayland-0' }, true, 'linux', true],
    ['macOS needs no DISPLAY', {}, true, 'darwin', true],
  ] as const)('%s', (_name, env, tty, platform, expected) => {
    expect(canOpenBrowser(env, tty, platform)).toBe(expected);
  });
});

it('the authorize URL carries client, redirect, scopes, state, an S256 challenge and the resource', () => {
  const { verifier, challenge } = pkcePair();
  expect(createHash('sha256').update(verifier).digest('base64url')).toBe(challenge);
  const u = new URL(
    authorizeUrl(`${ISS}/oauth/authorize`, {
      clientId: 'wcm-cli',
      redirectUri: 'http://127.0.0.1:5/callback',
      scopes: ['lists:read', 'lists:write'],
      state: 'st',
      challenge,
      resource: `${ISS}/v1`,
    }),
  );
  expect(Object.fromEntries(u.searchParams)).toEqual({
    response_type: 'code',
    client_id: 'wcm-cli',
    redirect_uri: 'http://127.0.0.1:5/callback',
    scope: 'lists:read lists:write',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${ISS}/v1`,
  });
});
