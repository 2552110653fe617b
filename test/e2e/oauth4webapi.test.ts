// An outside OAuth client nobody here wrote, oauth4webapi (strict RFC 8414 / 9728 / 7636 / 9207
// checks), against the real server on a loopback port: discovery, both protected-resource
// documents (/mcp and /api/v1, issue 35 §3), the authorization code flow with PKCE through the real
// sign-in and consent pages, a refresh, and a call with the token it holds.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FormBrowser } from '../support/oauth.js';
import { demo, onPort } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
beforeAll(async () => {
  server = await onPort();
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});

// The server listens on loopback http: oauth4webapi wants https unless told otherwise.
const insecure = { [oauth.allowInsecureRequests]: true };
const REDIRECT = 'http://127.0.0.1:5931/callback';

it('discovery and both protected-resource documents pass its checks (resource, issuer)', async () => {
  const issuer = new URL(origin);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }),
  );
  expect(as.issuer).toBe(origin);
  for (const path of ['/mcp', '/api/v1', '/v1']) {
    const resource = new URL(`${origin}${path}`);
    const doc = await oauth.processResourceDiscoveryResponse(
      resource,
      await oauth.resourceDiscoveryRequest(resource, insecure),
    );
    expect(doc.resource).toBe(resource.href);
    expect(doc.authorization_servers).toEqual([origin]);
  }
});

it('authorization code + PKCE through sign-in and consent, then a refresh: every answer validated, the tokens work', async () => {
  const issuer = new URL(origin);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }),
  );
  const client: oauth.Client = { client_id: demo.oauthAppAcme };
  const auth = oauth.None();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: 'content:read',
    state,
    resource: `${origin}/api/v1`,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);

  const browser = new FormBrowser(origin);
  const consent = await browser.chooseAccount(await browser.follow(url.href), 'usr_ada');
  const answer = await browser.decide(consent.body, 'approve', [demo.ws1]);
  expect(answer.status).toBe(303);

  // validateAuthResponse checks `iss` (RFC 9207) and `state`.
  const params = oauth.validateAuthResponse(as, client, new URL(answer.headers.get('location')!), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, {
      ...insecure,
      additionalParameters: { resource: `${origin}/api/v1` },
    }),
  );
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.scope).toBe('content:read');
  const me = await oauth.protectedResourceRequest(
    tokens.access_token,
    'GET',
    new URL(`${origin}/api/v1/me`),
    undefined,
    undefined,
    insecure,
  );
  expect(me.status).toBe(200);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
  );
  expect(refreshed.access_token).not.toBe(tokens.access_token);
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  const again = await oauth.protectedResourceRequest(
    refreshed.access_token,
    'GET',
    new URL(`${origin}/v1/workspaces/${demo.ws1}/lists`),
    undefined,
    undefined,
    insecure,
  );
  expect(again.status).toBe(200);
  const refresh = async (token: string) =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, token, insecure),
    );
  // The same client retrying the token just rotated, within the reuse window (docs/oauth.md), gets a
  // fresh pair of the same authorization, which oauth4webapi validates like any other.
  const retried = await refresh(tokens.refresh_token!);
  expect(retried.access_token).not.toBe(refreshed.access_token);
  // Once the family has rotated on, the first token is two rotations back: reuse, refused (and the
  // family revoked), as oauth4webapi reports it.
  const onward = await refresh(refreshed.refresh_token!);
  await expect(refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  // The family's newest access token went with it: oauth4webapi reports the 401's challenge.
  await expect(
    oauth.protectedResourceRequest(
      onward.access_token,
      'GET',
      new URL(`${origin}/v1/workspaces/${demo.ws1}/lists`),
      undefined,
      undefined,
      insecure,
    ),
  ).rejects.toMatchObject({ name: 'WWWAuthenticateChallengeError', status: 401 });
});
