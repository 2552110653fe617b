// A code used twice at once is honoured once, and a refresh token rotates once (on PostgreSQL the two
// requests may be on two processes: the check is repeated inside the writing transaction). Runs on both
// stores.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exchangeCode } from '../../../src/server/oauth/grants/authorization-code.js';
import { refreshTokens } from '../../../src/server/oauth/grants/refresh-token.js';
import { findClient } from '../../../src/server/oauth/models/client.js';
import { OAuthError } from '../../../src/server/oauth/errors.js';
import { demoCode } from '../../support/oauth.js';
import { demo, inProcess, TestClock, type InProcess } from '../../support/server.js';

const clock = new TestClock(new Date('2026-11-22T12:00:00.000Z'));
const ORIGIN = 'http://127.0.0.1:4010';
let env: InProcess;
beforeEach(async () => {
  env = await inProcess({ clock });
});
afterEach(async () => {
  await env.close();
});

async function code() {
  const client = findClient(env.store, demo.oauthAppAcme)!;
  const c = await demoCode(env.store, clock);
  const params = { code: c.code, redirect_uri: 'http://127.0.0.1/callback', code_verifier: c.verifier, origin: ORIGIN };
  return { client, params };
}

const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? 'ok' : r.reason instanceof OAuthError ? r.reason.error : String(r.reason);

describe('used twice at once, honoured once', () => {
  it('an authorization code', async () => {
    const { client, params } = await code();
    const both = await Promise.allSettled([
      exchangeCode(env.store, clock, client, params),
      exchangeCode(env.store, clock, client, params),
    ]);
    expect(both.map(outcome).sort()).toEqual(['invalid_grant', 'ok']);
  });

  it('a refresh token: rotated once, and the other answered as a retry in the reuse window', async () => {
    const { client, params } = await code();
    const first = await exchangeCode(env.store, clock, client, params);
    const p = { refresh_token: first.refresh_token, origin: ORIGIN };
    const both = await Promise.allSettled([
      refreshTokens(env.store, clock, client, p),
      refreshTokens(env.store, clock, client, p),
    ]);
    expect(both.map(outcome)).toEqual(['ok', 'ok']);
    // One rotation: both refresh tokens are of generation 1, not 1 and 2.
    const issued = both.map((r) => (r as PromiseFulfilledResult<{ refresh_token: string }>).value.refresh_token);
    expect(issued.map((t) => /_(\d+)_[A-Za-z0-9]{40}$/.exec(t)![1])).toEqual(['1', '1']);
  });
});
