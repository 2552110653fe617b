// The OAuth server end to end over a real socket (docs/oauth.md): discovery, the sign-in and consent
// forms driven with a cookie jar, the token endpoint, refresh rotation and reuse detection,
// revocation, dynamic registration, and a row for every refusal docs/oauth.md lists under "Refusals".
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashToken, tokenId } from '../../src/store/fixtures/import.js';
import { authorizeUrl, FormBrowser, moveClock, pkce, resetClock, storeNow, tokenRequest } from '../support/oauth.js';
import { demo, onPort, TestClock } from '../support/server.js';
import { exportState } from '../support/store.js';

const APP = demo.oauthAppAcme;
/** The demo app registered http://127.0.0.1/callback: a loopback redirect, so any port matches. */
const REDIRECT = 'http://127.0.0.1:5931/callback';
const ALL =
  'workspaces:read workspaces:write content:read content:write engagements:read engagements:manage actions:request';

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
const clock = new TestClock(new Date('2026-11-22T12:00:00.000Z'));
const state = () => exportState(server.db);

beforeAll(async () => {
  server = await onPort({ clock });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await resetClock(server.db, clock, new Date('2026-11-22T12:00:00.000Z'));
});

const api = async (path: string, token: string, init: RequestInit = {}) => {
  const res = await fetch(`${origin}/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
};

/** Signs Ada in and brings her to the consent page of a request; returns the browser and the page. */
async function toConsent(params: Record<string, string | undefined>, user = 'usr_ada') {
  const browser = new FormBrowser(origin);
  const first = await browser.follow(authorizeUrl(origin, params));
  expect(first.url).toContain('/oauth/sign-in?return_to=');
  const consent = await browser.chooseAccount(first, user);
  expect(consent.res.status).toBe(200);
  expect(consent.url).toContain('/oauth/authorize?');
  return { browser, consent };
}

/** The whole browser part for Ada: returns the code the app receives. */
async function authorize(
  opts: {
    client?: string;
    redirect?: string;
    scope?: string;
    resource?: string;
    workspaces?: string[];
    user?: string;
  } = {},
) {
  const { verifier, challenge } = pkce();
  const st = `st-${Math.random()}`;
  const { browser, consent } = await toConsent(
    {
      response_type: 'code',
      client_id: opts.client ?? APP,
      redirect_uri: opts.redirect ?? REDIRECT,
      scope: opts.scope ?? 'content:read engagements:read',
      state: st,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: opts.resource,
    },
    opts.user,
  );
  const res = await browser.decide(consent.body, 'approve', opts.workspaces ?? [demo.ws1]);
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(back.searchParams.get('state')).toBe(st);
  expect(back.searchParams.get('iss')).toBe(origin);
  return { code: back.searchParams.get('code')!, verifier, back, browser };
}

const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  tokenRequest(origin, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: APP,
    code_verifier: verifier,
    ...extra,
  });

describe('discovery', () => {
  it('publishes the authorization server metadata of RFC 8414 with the issuer the caller used', async () => {
    const res = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      revocation_endpoint: `${origin}/oauth/revoke`,
      registration_endpoint: `${origin}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      scopes_supported: ALL.split(' '),
      authorization_response_iss_parameter_supported: true,
    });
  });

  it.each([
    ['/.well-known/oauth-protected-resource', `/v1`],
    ['/.well-known/oauth-protected-resource/v1', `/v1`],
    ['/.well-known/oauth-protected-resource/mcp', `/mcp`],
  ])('%s names the resource %s and this server as its authorization server (RFC 9728)', async (path, resource) => {
    const doc = await (await fetch(`${origin}${path}`)).json();
    expect(doc).toMatchObject({
      resource: `${origin}${resource}`,
      authorization_servers: [origin],
      bearer_methods_supported: ['header'],
      scopes_supported: ALL.split(' '),
    });
  });

  it('a 401 from /v1 points at the metadata, so a client finds the server by itself', async () => {
    const res = await fetch(`${origin}/v1/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource"`,
    );
  });
});

describe('the authorization code flow with PKCE', () => {
  it('sign-in, consent, code, tokens: the access token reaches the granted workspace only, with the granted abilities', async () => {
    const { verifier, challenge } = pkce();
    const { browser, consent } = await toConsent({
      response_type: 'code',
      client_id: APP,
      redirect_uri: REDIRECT,
      scope: 'content:read engagements:read',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    // The consent page: the app, each ability in words, the user's workspaces unticked, a CSRF field, strict headers.
    expect(consent.body).toContain('Authorize Acme helpdesk agent');
    expect(consent.body).toContain('Read buttons, forms, lists, pages, booking types and knowledge');
    expect(consent.body).toContain(
      'Read submissions, subscribers, bookings, callbacks, calls, reviews and conversations',
    );
    expect(consent.body).not.toContain('Create, update, publish and remove content');
    expect(consent.body).toContain(`name="workspace_${demo.ws1}" value="on">`);
    expect(consent.body).toContain(`name="workspace_${demo.ws2}" value="on">`);
    expect(consent.body).not.toContain(`workspace_${demo.ws3}`); // Ada is not a member of Civic Help Desk
    expect(FormBrowser.field(consent.body, 'csrf')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(consent.res.headers.get('x-frame-options')).toBe('DENY');
    const csp = consent.res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:5931");
    // Its one script (Authorize disabled until something is ticked) comes from /assets: no inline script.
    expect(csp.split('; ')).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const session = consent.res.headers.get('set-cookie');
    expect(session).toBeNull(); // the session cookie was set at sign-in, for /oauth only
    expect([...browser.cookies.keys()]).toContain('wcm_session');

    const res = await browser.decide(consent.body, 'approve', [demo.ws1]);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:5931/callback');
    expect(back.searchParams.get('state')).toBe('xyz');
    expect(back.searchParams.get('iss')).toBe(origin);
    const code = back.searchParams.get('code')!;

    const t = await exchange(code, verifier);
    expect(t.status).toBe(200);
    expect(t.headers.get('cache-control')).toBe('no-store');
    expect(t.json).toEqual({
      access_token: expect.stringMatching(/^wcm_oat_[A-Za-z0-9]{40}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^wcm_ort_[A-Za-z0-9]{24}_0_[A-Za-z0-9]{40}$/),
      scope: 'content:read engagements:read',
    });

    const me = await api('/me', t.json.access_token);
    expect(me.status).toBe(200);
    expect(me.json.data.token).toMatchObject({
      kind: 'oauth',
      abilities: ['content:read', 'engagements:read'],
      name: 'Acme helpdesk agent',
    });
    expect(me.json.data.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws1]);
    expect((await api(`/workspaces/${demo.ws1}/lists`, t.json.access_token)).status).toBe(200);
    expect((await api(`/workspaces/${demo.ws2}/lists`, t.json.access_token)).json.code).toBe('not_a_member');
    expect(
      (
        await api(`/workspaces/${demo.ws1}/lists`, t.json.access_token, {
          method: 'POST',
          body: JSON.stringify({ title: 'x', template_slug: 'faq' }),
        })
      ).json.code,
    ).toBe('insufficient_ability');
    // Nothing in clear on disk: the store keeps hashes.
    const disk = await state();
    for (const secret of [code, t.json.access_token, t.json.refresh_token]) expect(disk).not.toContain(secret);

    // An hour later the access token has expired; the refresh token rotates.
    await moveClock(server.db, clock, 3600_000);
    expect((await api('/me', t.json.access_token)).status).toBe(401);
    const r1 = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t.json.refresh_token,
      client_id: APP,
    });
    expect(r1.status).toBe(200);
    expect(r1.json.refresh_token).not.toBe(t.json.refresh_token);
    expect((await api('/me', r1.json.access_token)).status).toBe(200);
    // A narrower scope on refresh narrows the new access token only.
    const r2 = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: r1.json.refresh_token,
      client_id: APP,
      scope: 'content:read',
    });
    expect(r2.json.scope).toBe('content:read');
    // The used refresh token again: someone else has it. The whole family is revoked.
    const replay = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t.json.refresh_token,
      client_id: APP,
    });
    expect([replay.status, replay.json.error]).toEqual([400, 'invalid_grant']);
    expect((await api('/me', r2.json.access_token)).status).toBe(401);
    const after = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: r2.json.refresh_token,
      client_id: APP,
    });
    expect(after.json.error).toBe('invalid_grant');
  });

  it('a code used twice is refused and what its first use issued is revoked', async () => {
    const { code, verifier } = await authorize();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect((await api('/me', first.json.access_token)).status).toBe(200);
    const second = await exchange(code, verifier);
    expect([second.status, second.json.error]).toEqual([400, 'invalid_grant']);
    expect((await api('/me', first.json.access_token)).status).toBe(401);
  });

  it('Deny sends the user back with access_denied, state and iss, and issues nothing', async () => {
    const { challenge } = pkce();
    const { browser, consent } = await toConsent({
      response_type: 'code',
      client_id: APP,
      redirect_uri: REDIRECT,
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const before = await state();
    const res = await browser.decide(consent.body, 'deny');
    const back = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 's1', iss: origin });
    expect(back.searchParams.get('code')).toBeNull();
    expect(await state()).toBe(before);
  });

  it('approving with no workspace ticked shows the page again with a message; a forged CSRF token is refused', async () => {
    const { challenge } = pkce();
    const { browser, consent } = await toConsent({
      response_type: 'code',
      client_id: APP,
      redirect_uri: REDIRECT,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const before = await state();
    const none = await browser.decide(consent.body, 'approve', []);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Tick at least one workspace');
    const forged = await browser.request('/oauth/authorize', {
      form: {
        ...FormBrowser.hidden(consent.body),
        csrf: 'A'.repeat(43),
        decision: 'approve',
        [`workspace_${demo.ws1}`]: 'on',
      },
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    const notMine = await browser.request('/oauth/authorize', {
      form: { ...FormBrowser.hidden(consent.body), decision: 'approve', [`workspace_${demo.ws3}`]: 'on' },
    });
    expect(notMine.status).toBe(400);
    expect(await state()).toBe(before);
  });

  it('each requested ability is a ticked checkbox; the token gets only what stayed ticked', async () => {
    const { verifier, challenge } = pkce();
    const { browser, consent } = await toConsent({
      response_type: 'code',
      client_id: APP,
      redirect_uri: REDIRECT,
      scope: 'content:read engagements:read workspaces:write',
      state: 'u',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    for (const a of ['content:read', 'engagements:read', 'workspaces:write'])
      expect(consent.body).toContain(`<input type="checkbox" name="ability_${a}" value="on" checked>`);
    expect(consent.body).not.toContain('ability_content:write');
    const res = await browser.decide(consent.body, 'approve', [demo.ws1], ['engagements:read', 'workspaces:write']);
    expect(res.status).toBe(303);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const exchanging = await storeNow(server.db);
    const t = await exchange(code, verifier);
    const exchanged = await storeNow(server.db);
    expect(t.status).toBe(200);
    expect(t.json.scope).toBe('content:read');
    expect((await api(`/workspaces/${demo.ws1}/lists`, t.json.access_token)).status).toBe(200);
    const threads = await api(`/workspaces/${demo.ws1}/threads`, t.json.access_token);
    expect([threads.status, threads.json.code]).toEqual([403, 'insufficient_ability']);
    // The grant the exchange made (by the store's clock, the test's on the JSON engine) holds what stayed ticked.
    const grant = await server.db.read(async (tx) => {
      const stored = await tx.get('tokens', tokenId(hashToken(t.json.access_token)));
      return tx.get('oauth_grants', stored!.grant_id!);
    });
    expect(grant?.abilities).toEqual(['content:read']);
    expect(Date.parse(grant!.created_at)).toBeGreaterThanOrEqual(exchanging);
    expect(Date.parse(grant!.created_at)).toBeLessThanOrEqual(exchanged);
  });

  it('every ability unticked shows the page again; an ability the consent did not offer is refused', async () => {
    const { challenge } = pkce();
    const { browser, consent } = await toConsent({
      response_type: 'code',
      client_id: APP,
      redirect_uri: REDIRECT,
      scope: 'content:read engagements:read',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const before = await state();
    const none = await browser.decide(consent.body, 'approve', [demo.ws1], ['content:read', 'engagements:read']);
    expect(none.status).toBe(400);
    const again = await none.text();
    expect(again).toContain('Tick at least one ability, or deny.');
    // The page comes back as the user left it: abilities unticked, Acme Coffee ticked.
    expect(again).toContain('<input type="checkbox" name="ability_content:read" value="on">');
    expect(again).toContain(`<input type="checkbox" name="workspace_${demo.ws1}" value="on" checked>`);
    const forged = await browser.request('/oauth/authorize', {
      form: {
        ...FormBrowser.hidden(consent.body),
        decision: 'approve',
        'ability_content:read': 'on',
        'ability_content:write': 'on',
        [`workspace_${demo.ws1}`]: 'on',
      },
    });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('`content:write`, which this consent did not offer');
    expect(await state()).toBe(before);
  });

  it('resource={origin}/mcp gives a wcm-mcp token, which /v1 refuses as another audience', async () => {
    const { code, verifier } = await authorize({ resource: `${origin}/mcp` });
    const t = await exchange(code, verifier, { resource: `${origin}/mcp` });
    expect(t.status).toBe(200);
    const res = await api('/me', t.json.access_token);
    expect(res.status).toBe(401);
    expect(res.json.detail).toContain('another audience');
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource", error="invalid_token"`,
    );
    // The stored token names its grant, which holds the audience (the token's text says nothing of it).
    const stored = (await server.db.read((tx) => tx.get('tokens', tokenId(hashToken(t.json.access_token)))))!;
    expect((await server.db.read((tx) => tx.get('oauth_grants', stored.grant_id!)))?.audience).toBe('wcm-mcp');
  });

  it('a confidential client authenticates with client_secret_basic; without its secret it is invalid_client (401)', async () => {
    const { verifier, challenge } = pkce();
    const redirect = 'https://sync.bluefern.example/callback';
    const { browser, consent } = await toConsent(
      {
        response_type: 'code',
        client_id: demo.oauthAppBlueFern,
        redirect_uri: redirect,
        state: 'b',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'engagements:read',
      },
      'usr_bo',
    );
    const res = await browser.decide(consent.body, 'approve', [demo.ws2]);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier };
    const anonymous = await tokenRequest(origin, { ...form, client_id: demo.oauthAppBlueFern });
    expect([anonymous.status, anonymous.json.error]).toEqual([401, 'invalid_client']);
    const ok = await tokenRequest(origin, form, { basic: [demo.oauthAppBlueFern, demo.oauthAppBlueFernSecret] });
    expect(ok.status).toBe(200);
    expect((await api(`/workspaces/${demo.ws2}/bookings`, ok.json.access_token)).status).toBe(200);
  });
});

describe('refusals (docs/oauth.md, refusals): the standard error of the place, nothing issued, nothing changed', () => {
  const { challenge } = pkce();
  const good = {
    response_type: 'code',
    client_id: APP,
    redirect_uri: REDIRECT,
    scope: 'content:read',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };

  it.each([
    ['an unknown client_id', { client_id: 'wcm_app_doesNotExist000000000000000' }, 'Unknown application'],
    ['no client_id', { client_id: undefined }, 'Unknown application'],
    [
      'a redirect_uri not registered',
      { redirect_uri: 'https://evil.example/callback' },
      'Redirect address not registered',
    ],
    [
      'a registered loopback path with another path',
      { redirect_uri: 'http://127.0.0.1:5931/other' },
      'Redirect address not registered',
    ],
    [
      'wcm-cli with a redirect off loopback',
      { client_id: 'wcm-cli', redirect_uri: 'https://evil.example/cb' },
      'Redirect address not registered',
    ],
    [
      'a redirect_uri with a fragment',
      { redirect_uri: 'http://127.0.0.1:5931/callback#x' },
      'Redirect address not registered',
    ],
  ])('%s: an error page (400), never a redirect', async (_, change, title) => {
    const before = await state();
    const res = await fetch(authorizeUrl(origin, { ...good, ...change }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain(title);
    expect(await state()).toBe(before);
  });

  it.each([
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'content:read admin' }, 'invalid_scope'],
    ['a resource of another server', { resource: 'https://other.example/v1' }, 'invalid_target'],
  ])('%s: a redirect with error, state and iss', async (_, change, error) => {
    const before = await state();
    const res = await fetch(authorizeUrl(origin, { ...good, ...change }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:5931/callback');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error, state: 'st', iss: origin });
    expect(await state()).toBe(before);
  });

  it.each<[string, (c: { code: string; verifier: string }) => Record<string, string>, string, number]>([
    [
      'a wrong code_verifier',
      (c) => ({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: REDIRECT,
        client_id: APP,
        code_verifier: pkce().verifier,
      }),
      'invalid_grant',
      400,
    ],
    [
      'no code_verifier',
      (c) => ({ grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT, client_id: APP }),
      'invalid_request',
      400,
    ],
    [
      'another redirect_uri',
      (c) => ({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: 'http://127.0.0.1:5931/other',
        client_id: APP,
        code_verifier: c.verifier,
      }),
      'invalid_grant',
      400,
    ],
    [
      'another client',
      (c) => ({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: REDIRECT,
        client_id: 'wcm-cli',
        code_verifier: c.verifier,
      }),
      'invalid_grant',
      400,
    ],
    [
      'another resource',
      (c) => ({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: REDIRECT,
        client_id: APP,
        code_verifier: c.verifier,
        resource: `${origin}/mcp`,
      }),
      'invalid_target',
      400,
    ],
    [
      'an unknown code',
      (c) => ({
        grant_type: 'authorization_code',
        code: 'wcm_code_nope',
        redirect_uri: REDIRECT,
        client_id: APP,
        code_verifier: c.verifier,
      }),
      'invalid_grant',
      400,
    ],
    [
      'an unknown client',
      (c) => ({
        grant_type: 'authorization_code',
        code: c.code,
        redirect_uri: REDIRECT,
        client_id: 'wcm_app_unknown00000000000000000000',
        code_verifier: c.verifier,
      }),
      'invalid_client',
      401,
    ],
    [
      'a grant type it does not know',
      () => ({ grant_type: 'password', client_id: APP, username: 'a', password: 'b' }),
      'unsupported_grant_type',
      400,
    ],
    ['no grant type', () => ({ client_id: APP }), 'unsupported_grant_type', 400],
  ])(
    'token endpoint, %s: RFC 6749 JSON, nothing issued; the code still works afterwards',
    async (_, form, error, status) => {
      const c = await authorize();
      const before = await state();
      const res = await tokenRequest(origin, form(c));
      expect(res.status).toBe(status);
      expect(res.json).toEqual({ error, error_description: expect.any(String) });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await state()).toBe(before);
      expect((await exchange(c.code, c.verifier)).status).toBe(200);
    },
  );

  it('an expired code (60 s) is invalid_grant', async () => {
    const { code, verifier } = await authorize();
    await moveClock(server.db, clock, 61_000);
    const res = await exchange(code, verifier);
    expect([res.status, res.json.error]).toEqual([400, 'invalid_grant']);
    expect(res.json.error_description).toContain('expired');
  });

  it('a refresh token presented by another client is invalid_grant and does not rotate', async () => {
    const { code, verifier } = await authorize();
    const t = await exchange(code, verifier);
    const res = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t.json.refresh_token,
      client_id: 'wcm-cli',
    });
    expect([res.status, res.json.error]).toEqual([400, 'invalid_grant']);
    expect(
      (await tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: t.json.refresh_token, client_id: APP }))
        .status,
    ).toBe(200);
  });

  it('a form body is required at the token endpoint; a field twice is invalid_request', async () => {
    const json = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([json.status, (await json.json()).error]).toEqual([400, 'invalid_request']);
    const twice = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=a&grant_type=b',
    });
    expect([twice.status, (await twice.json()).error]).toEqual([400, 'invalid_request']);
  });
});

describe('revocation (RFC 7009)', () => {
  it('an access token alone; a refresh token with its whole authorization; unknown tokens answer 200 too', async () => {
    const { code, verifier } = await authorize();
    const t = await exchange(code, verifier);
    const a = await tokenRequest(origin, { token: t.json.access_token, client_id: APP }, { path: '/oauth/revoke' });
    expect(a.status).toBe(200);
    expect((await api('/me', t.json.access_token)).status).toBe(401);
    const r = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t.json.refresh_token,
      client_id: APP,
    });
    expect(r.status).toBe(200);
    await tokenRequest(
      origin,
      { token: r.json.refresh_token, token_type_hint: 'refresh_token', client_id: APP },
      { path: '/oauth/revoke' },
    );
    expect((await api('/me', r.json.access_token)).status).toBe(401);
    expect(
      (await tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: r.json.refresh_token, client_id: APP }))
        .json.error,
    ).toBe('invalid_grant');
    const unknown = await tokenRequest(origin, { token: 'wcm_oat_nothing', client_id: APP }, { path: '/oauth/revoke' });
    expect(unknown.status).toBe(200);
    const missing = await tokenRequest(origin, { client_id: APP }, { path: '/oauth/revoke' });
    expect([missing.status, missing.json.error]).toEqual([400, 'invalid_request']);
  });
});

describe('grants and applications through the API', () => {
  it('the user lists what they authorized and revokes it; the tokens stop working', async () => {
    const known = new Set(
      (await api('/me/oauth-grants?limit=100', demo.owner)).json.data.map((g: { id: string }) => g.id),
    );
    const { code, verifier } = await authorize();
    const t = await exchange(code, verifier);
    const list = await api('/me/oauth-grants?limit=100', demo.owner);
    expect(list.status).toBe(200);
    const fresh = list.json.data.filter((g: { id: string }) => !known.has(g.id));
    expect(fresh).toHaveLength(1);
    const grant = fresh[0];
    expect(grant).toMatchObject({
      app_name: 'Acme helpdesk agent',
      abilities: ['content:read', 'engagements:read'],
      workspace_ids: [demo.ws1],
      audience: 'wcm-api-v1',
      revoked_at: null,
    });
    const revoking = await storeNow(server.db);
    const revoked = await api(`/me/oauth-grants/${grant.id}`, demo.owner, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    // Revoked at the store's time (on the JSON engine the test's clock, so exactly it).
    const at = Date.parse(revoked.json.data.revoked_at);
    expect(at).toBeGreaterThanOrEqual(revoking);
    expect(at).toBeLessThanOrEqual(await storeNow(server.db));
    if (server.db.kind === 'json') expect(revoked.json.data.revoked_at).toBe(clock.current.toISOString());
    expect((await api('/me', t.json.access_token)).status).toBe(401);
    expect((await api('/me/oauth-grants', demo.owner)).json.data.map((g: { id: string }) => g.id)).not.toContain(
      grant.id,
    );
    // Another user's grant is as unknown as a missing one.
    expect((await api(`/me/oauth-grants/${demo.grantBo}`, demo.owner, { method: 'DELETE' })).json.code).toBe(
      'oauth_grant_not_found',
    );
  });

  it('createOAuthApp shows a confidential secret once; deleteOAuthApp revokes every token the app was issued', async () => {
    const created = await api(`/workspaces/${demo.ws1}/oauth-apps`, demo.owner, {
      method: 'POST',
      body: JSON.stringify({ name: 'Nightly export', redirect_uris: ['https://ci.example/cb'], type: 'confidential' }),
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({
      client_id: expect.stringMatching(/^wcm_app_/),
      name: 'Nightly export',
      type: 'confidential',
      workspace_id: demo.ws1,
      client_secret: expect.stringMatching(/^wcm_secret_/),
    });
    expect(await state()).not.toContain(created.json.data.client_secret);
    const listed = await api(`/workspaces/${demo.ws1}/oauth-apps`, demo.owner);
    const mine = listed.json.data.find((a: { client_id: string }) => a.client_id === created.json.data.client_id);
    expect(mine).not.toHaveProperty('client_secret');
    const bad = await api(`/workspaces/${demo.ws1}/oauth-apps`, demo.owner, {
      method: 'POST',
      body: JSON.stringify({ name: 'x', redirect_uris: ['javascript:alert(1)'] }),
    });
    expect([bad.status, bad.json.code]).toEqual([422, 'validation_failed']);
    expect(JSON.stringify(bad.json.errors)).toContain('redirect_uris');

    const { code, verifier } = await authorize();
    const t = await exchange(code, verifier);
    const gone = await api(`/workspaces/${demo.ws1}/oauth-apps/${APP}`, demo.owner, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect((await api('/me', t.json.access_token)).status).toBe(401);
    expect(
      (
        await fetch(authorizeUrl(origin, { response_type: 'code', client_id: APP, redirect_uri: REDIRECT }), {
          redirect: 'manual',
        })
      ).status,
    ).toBe(400);
    expect((await api(`/workspaces/${demo.ws1}/oauth-apps/${APP}`, demo.owner, { method: 'DELETE' })).json.code).toBe(
      'oauth_app_not_found',
    );
  });
});

describe('dynamic registration (RFC 7591)', () => {
  it('registers a public client that then runs the flow for the MCP resource', async () => {
    const res = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Inspector <b>', redirect_uris: ['http://localhost:6274/oauth/callback'] }),
    });
    expect(res.status).toBe(201);
    const client = await res.json();
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^wcm_app_/),
      client_name: 'Inspector <b>',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://localhost:6274/oauth/callback'],
    });
    const { verifier, challenge } = pkce();
    const { browser, consent } = await toConsent({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://localhost:7000/oauth/callback',
      state: 'm',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${origin}/mcp`,
    });
    expect(consent.body).toContain('Authorize Inspector &lt;b&gt;');
    expect(consent.body).not.toContain('Inspector <b>');
    const back = new URL((await browser.decide(consent.body, 'approve', [demo.ws1])).headers.get('location')!);
    const t = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: 'http://localhost:7000/oauth/callback',
      client_id: client.client_id,
      code_verifier: verifier,
      resource: `${origin}/mcp`,
    });
    expect(t.status).toBe(200);
    expect(t.json.scope).toBe(ALL);
  });

  it.each([
    ['a javascript: redirect', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a plain-http redirect off loopback', { redirect_uris: ['http://example.com/cb'] }, 'invalid_redirect_uri'],
    ['no redirect', {}, 'invalid_redirect_uri'],
    [
      'a confidential client',
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    [
      'an implicit grant',
      { redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] },
      'invalid_client_metadata',
    ],
  ])('%s is refused (%s) and registers nothing', async (_, body, error) => {
    const before = await state();
    const res = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe(error);
    expect(await state()).toBe(before);
  });
});
