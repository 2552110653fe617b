// Refresh-token reuse window (issue 47, item 15). mcp-remote sent three refreshes with one refresh token
// at once after its access token expired: one was answered, two were taken for theft and the whole
// family revoked. Now a retry of the token just rotated, by the same client within 5 s of the
// rotation, gets a fresh pair of the family; after the window, or two rotations back, it is reuse
// and still revokes everything. The real server over HTTP, on both stores; the clock is the test's
// (on PostgreSQL the database's, moved by its offset).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REUSE_WINDOW_MS } from '../../../src/server/oauth/models/grant.js';
import { clockSlack, demoCode, moveClock, resetClock, tokenRequest } from '../../support/oauth.js';
import { demo, onPort, TestClock } from '../../support/server.js';

const START = new Date('2026-11-22T12:00:00.000Z');
const clock = new TestClock(START);
let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
beforeAll(async () => {
  server = await onPort({ clock, rateLimit: 1000 });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await resetClock(server.db, clock, START);
});

async function tokens() {
  const c = await demoCode(server.db);
  const res = await tokenRequest(origin, {
    grant_type: 'authorization_code',
    code: c.code,
    redirect_uri: 'http://127.0.0.1/callback',
    code_verifier: c.verifier,
    client_id: demo.oauthAppAcme,
  });
  expect(res.status).toBe(200);
  return res.json as { access_token: string; refresh_token: string };
}
const refresh = (token: string, client: string = demo.oauthAppAcme) =>
  tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: token, client_id: client });
const me = async (token: string) =>
  (await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('refresh-token reuse window', () => {
  it('the window is 5 s', () => {
    expect(REUSE_WINDOW_MS).toBe(5_000);
  });

  it('N parallel refreshes with one refresh token all succeed, and the family stays valid', async () => {
    const first = await tokens();
    const answers = await Promise.all(Array.from({ length: 4 }, () => refresh(first.refresh_token)));
    expect(answers.map((a) => [a.status, a.json.error])).toEqual(Array(4).fill([200, undefined]));
    // Every answer is a working pair of the one family, its refresh token of the next generation.
    const pairs = answers.map((a) => a.json as { access_token: string; refresh_token: string });
    expect(new Set(pairs.map((p) => p.access_token)).size).toBe(4);
    for (const p of pairs) {
      expect(p.refresh_token).toMatch(/^wcm_ort_[A-Za-z0-9]+_1_/);
      expect(await me(p.access_token)).toBe(200);
    }
    // Whichever answer the client kept, its refresh token rotates later, and the others' access tokens
    // still work until then.
    await moveClock(server.db, clock, 60_000);
    const later = await refresh(pairs[2].refresh_token);
    expect(later.status).toBe(200);
    expect(later.json.refresh_token).toMatch(/_2_/);
    expect(await me(later.json.access_token)).toBe(200);
    expect(await me(pairs[0].access_token)).toBe(200);
  });

  it('a retry within the window answers; the same reuse after the window revokes the whole family', async () => {
    const first = await tokens();
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    const slack = clockSlack(server.db);
    await moveClock(server.db, clock, REUSE_WINDOW_MS - slack);
    const retry = await refresh(first.refresh_token);
    expect(retry.status).toBe(200);
    expect(await me(rotated.json.access_token)).toBe(200);
    // Past the window from the rotation (a retry answered in it does not extend it): theft.
    await moveClock(server.db, clock, slack);
    const stolen = await refresh(first.refresh_token);
    expect([stolen.status, stolen.json.error]).toEqual([400, 'invalid_grant']);
    expect(stolen.json.error_description).toMatch(/already used; every token of this authorization is now revoked/);
    for (const t of [rotated.json.access_token, retry.json.access_token]) expect(await me(t)).toBe(401);
    for (const t of [rotated.json.refresh_token, retry.json.refresh_token])
      expect((await refresh(t)).json.error_description).toBe('The refresh token has been revoked.');
  });

  it('a token two rotations back is reuse even within the window', async () => {
    const first = await tokens();
    const one = await refresh(first.refresh_token);
    const two = await refresh(one.json.refresh_token);
    expect(two.status).toBe(200);
    const replay = await refresh(first.refresh_token);
    expect([replay.status, replay.json.error]).toEqual([400, 'invalid_grant']);
    expect(await me(two.json.access_token)).toBe(401);
  });

  it('another client presenting the token within the window gets nothing, and revokes nothing', async () => {
    const first = await tokens();
    const rotated = await refresh(first.refresh_token);
    const other = await refresh(first.refresh_token, demo.oauthAppBlueFern);
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(other.json.access_token).toBeUndefined();
    expect(await me(rotated.json.access_token)).toBe(200);
  });
});
