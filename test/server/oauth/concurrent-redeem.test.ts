// A code used twice at once is honoured once, and a refresh token rotates once: each is decided in one
// write that reads (and so locks) the code or the grant first, so the second of two requests at once,
// in one process or in two on one database, sees what the first wrote. Runs on both stores.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exchangeCode } from '../../../src/server/oauth/grants/authorization-code.js';
import { refreshTokens } from '../../../src/server/oauth/grants/refresh-token.js';
import { CLI_CLIENT_ID, findClient } from '../../../src/server/oauth/models/client.js';
import { issueCode } from '../../../src/server/oauth/models/code.js';
import { OAuthError } from '../../../src/server/oauth/errors.js';
import type { StoreEngine } from '../../../src/store/engine/interface.js';
import { PostgresEngine } from '../../../src/store/postgres/engine.js';
import { demoCode, pkce } from '../../support/oauth.js';
import { freshDatabase, type TestDatabase } from '../../support/postgres.js';
import { demo, onPort, TestClock } from '../../support/server.js';

const clock = new TestClock(new Date('2026-11-22T12:00:00.000Z'));
const ORIGIN = 'http://127.0.0.1:4010';
let server: Awaited<ReturnType<typeof onPort>>;
beforeEach(async () => {
  server = await onPort({ clock });
});
afterEach(async () => {
  await server.close();
});

async function code() {
  const client = (await server.db.read((tx) => findClient(tx, demo.oauthAppAcme)))!;
  const c = await demoCode(server.db);
  const params = { code: c.code, redirect_uri: 'http://127.0.0.1/callback', code_verifier: c.verifier, origin: ORIGIN };
  return { client, params };
}

const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'fulfilled' ? 'ok' : r.reason instanceof OAuthError ? r.reason.error : String(r.reason);

describe('used twice at once, honoured once', () => {
  it('an authorization code', async () => {
    const { client, params } = await code();
    const both = await Promise.allSettled([
      exchangeCode(server.db, client, params),
      exchangeCode(server.db, client, params),
    ]);
    expect(both.map(outcome).sort()).toEqual(['invalid_grant', 'ok']);
  });

  it('a refresh token: rotated once, and the other answered as a retry in the reuse window', async () => {
    const { client, params } = await code();
    const first = await exchangeCode(server.db, client, params);
    const p = { refresh_token: first.refresh_token, origin: ORIGIN };
    const both = await Promise.allSettled([refreshTokens(server.db, client, p), refreshTokens(server.db, client, p)]);
    expect(both.map(outcome)).toEqual(['ok', 'ok']);
    // One rotation: both refresh tokens are of generation 1, not 1 and 2.
    const issued = both.map((r) => (r as PromiseFulfilledResult<{ refresh_token: string }>).value.refresh_token);
    expect(issued.map((t) => /_(\d+)_[A-Za-z0-9]{40}$/.exec(t)![1])).toEqual(['1', '1']);
  });
});

// Two processes on one PostgreSQL database: two engines over one schema, each redeeming the same
// code (and refreshing the same token) at once. The code's row is locked by the first write to read
// it, so the second finds it used.
describe('two processes on one database', () => {
  let pg: TestDatabase;
  const engines: PostgresEngine[] = [];
  beforeAll(async () => {
    pg = await freshDatabase();
  });
  afterAll(async () => {
    for (const e of engines.splice(0)) await e.close().catch(() => undefined);
    await pg?.drop();
  });
  const twoProcesses = async () => {
    const url = `${pg.url}?schema=t_${randomBytes(6).toString('hex')}`;
    const a = await PostgresEngine.open(url);
    const b = await PostgresEngine.open(url);
    engines.push(a, b);
    return [a, b] as const;
  };
  const REDIRECT = 'http://127.0.0.1:5931/callback';
  async function cliCode(db: StoreEngine) {
    const { verifier, challenge } = pkce();
    const code = await issueCode(db, {
      client_id: CLI_CLIENT_ID,
      redirect_uri: REDIRECT,
      user_id: 'usr_ada',
      abilities: ['content:read'],
      workspace_ids: [demo.ws1],
      resource: '',
      audience: 'wcm-api-v1',
      code_challenge: challenge,
    });
    return { code, redirect_uri: REDIRECT, code_verifier: verifier, origin: ORIGIN };
  }

  it('a code redeemed by both at once is honoured once, every time', async () => {
    const [a, b] = await twoProcesses();
    const cli = (await a.read((tx) => findClient(tx, CLI_CLIENT_ID)))!;
    for (let i = 0; i < 5; i++) {
      const params = await cliCode(a);
      const both = await Promise.allSettled([exchangeCode(a, cli, params), exchangeCode(b, cli, params)]);
      expect(both.map(outcome).sort()).toEqual(['invalid_grant', 'ok']);
      const refused = both.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason.description).toBe(
        'The authorization code was already used; the tokens issued for it are revoked.',
      );
    }
    // One grant per code: the second redemption made none.
    expect(await b.read((tx) => tx.count('oauth_grants'))).toBe(5);
  });

  it('a refresh token refreshed by both at once rotates once; the other is answered in the reuse window', async () => {
    const [a, b] = await twoProcesses();
    const cli = (await a.read((tx) => findClient(tx, CLI_CLIENT_ID)))!;
    const first = await exchangeCode(a, cli, await cliCode(a));
    const p = { refresh_token: first.refresh_token, origin: ORIGIN };
    const both = await Promise.allSettled([refreshTokens(a, cli, p), refreshTokens(b, cli, p)]);
    expect(both.map(outcome)).toEqual(['ok', 'ok']);
    const issued = both.map((r) => (r as PromiseFulfilledResult<{ refresh_token: string }>).value.refresh_token);
    expect(issued.map((t) => /_(\d+)_[A-Za-z0-9]{40}$/.exec(t)![1])).toEqual(['1', '1']);
  });
});
