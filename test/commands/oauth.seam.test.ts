// `wcm oauth apps …` and `wcm oauth grants …` through the run(options, factory) seam: flags become the
// request, bad input and unconfirmed deletions send nothing. Against the real server: oauth.server.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import appsCreate from '../../commands/oauth/apps/create.js';
import appsLs from '../../commands/oauth/apps/ls.js';
import appsRm from '../../commands/oauth/apps/rm.js';
import grantsLs from '../../commands/oauth/grants/ls.js';
import grantsRevoke from '../../commands/oauth/grants/revoke.js';
import { fakeIO } from '../support/cli.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

const APP = 'wcm_app_demoAcmeHelpdeskAgent000000001';
const GRANT = 'grant_demoAdaAcmeHelpdesk01';
const app = (type: string) => ({
  client_id: APP,
  name: 'Helpdesk agent',
  type,
  redirect_uris: ['http://127.0.0.1/callback'],
  ...(type === 'confidential' ? { client_secret: 'wcm_secret_shown_once' } : {}),
  created_at: '2026-11-01T10:00:00.000Z',
});
const grant = { id: GRANT, app_name: 'Helpdesk agent' };

let h: SeamHarness;
afterEach(() => h.close());
const refused = (def: Parameters<SeamHarness['refused']>[0], opts: object) => h.refused(def, opts);

describe('wcm oauth apps (run seam)', () => {
  it('create: --name and each --redirect-uri make a public app; --confidential a confidential one', async () => {
    h = await seamHarness((req) => record(app(req.body.includes('"confidential"') ? 'confidential' : 'public')));
    const uris = ['http://127.0.0.1/callback', 'https://sync.example/cb'];
    expect(await h.run(appsCreate, { name: 'Helpdesk agent', redirectUri: uris })).toBe(0);
    expect(h.request()).toEqual({ method: 'POST', path: `/workspaces/${SEAM_WS}/oauth-apps`, query: {} });
    expect(h.body()).toEqual({ name: 'Helpdesk agent', redirect_uris: uris, type: 'public' });
    expect(h.io.err()).toBe('');
    await h.run(appsCreate, { name: 'Nightly sync', redirectUri: uris.slice(1), confidential: true });
    expect(h.body(1)).toEqual({ name: 'Nightly sync', redirect_uris: uris.slice(1), type: 'confidential' });
    expect(h.io.out()).toContain('client_secret\twcm_secret_shown_once\n');
    expect(h.io.err()).toBe('Save the client secret now: it is shown only this once.\n');
  });

  it('create without --name or without a --redirect-uri: a usage error with an example, nothing sent', async () => {
    h = await seamHarness();
    expect(await refused(appsCreate, { redirectUri: ['http://127.0.0.1/cb'] })).toBe('Missing `--name`.');
    expect(await refused(appsCreate, { name: 'X' })).toBe('Missing `--redirect-uri` (at least one).');
    expect(await refused(appsCreate, { name: 'X', redirectUri: [] })).toBe('Missing `--redirect-uri` (at least one).');
  });

  it('create on a terminal asks for what is missing (name, then one redirect URI) and sends the answers', async () => {
    const asked: string[] = [];
    const answers: Record<string, string> = {
      'Name shown on the consent page': ' Desk ',
      'Redirect URI': 'http://[::1]/cb',
    };
    const prompter = {
      input: (o: { message: string }) => (asked.push(o.message), Promise.resolve(answers[o.message])),
    };
    h = await seamHarness(() => record(app('public')), { io: fakeIO({ tty: true, prompter }) });
    expect(await h.run(appsCreate, {})).toBe(0);
    expect(asked).toEqual(['Name shown on the consent page', 'Redirect URI']);
    expect(h.body()).toEqual({ name: 'Desk', redirect_uris: ['http://[::1]/cb'], type: 'public' });
    await h.run(appsCreate, { redirectUri: ['https://a.example/cb'], confidential: true });
    expect(asked).toHaveLength(3);
    expect(h.body(1)).toEqual({ name: 'Desk', redirect_uris: ['https://a.example/cb'], type: 'confidential' });
  });

  it('ls lists the apps of the workspace, with the list flags', async () => {
    h = await seamHarness();
    await h.run(appsLs, { limit: '2', cursor: 'a' });
    expect(h.request()).toEqual({
      method: 'GET',
      path: `/workspaces/${SEAM_WS}/oauth-apps`,
      query: { limit: '2', cursor: 'a' },
    });
  });

  it('rm APP --yes deletes that app of the workspace', async () => {
    h = await seamHarness(() => record(app('public')));
    expect(await h.run(appsRm, { args: [APP], yes: true })).toBe(0);
    expect(h.request()).toEqual({ method: 'DELETE', path: `/workspaces/${SEAM_WS}/oauth-apps/${APP}`, query: {} });
    expect(h.io.err()).toBe(`Deleted Helpdesk agent (${APP}); its tokens are revoked.\n`);
  });

  it('rm piped without --yes: a usage error saying to pass --yes, nothing sent', async () => {
    h = await seamHarness();
    expect(await refused(appsRm, { args: [APP] })).toBe(
      `Delete application ${APP} and revoke every token it was issued: pass \`--yes\` to confirm (there is no terminal to ask).`,
    );
  });
});

describe('wcm oauth grants (run seam)', () => {
  it("ls lists the user's grants at /me, which needs no workspace", async () => {
    h = await seamHarness(undefined, { env: { WCM_WORKSPACE: undefined } });
    expect(await h.run(grantsLs)).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: '/me/oauth-grants', query: {} });
  });

  it('revoke GRANT --yes deletes that grant', async () => {
    h = await seamHarness(() => record(grant));
    expect(await h.run(grantsRevoke, { args: [GRANT], yes: true }, { json: true })).toBe(0);
    expect(h.request()).toEqual({ method: 'DELETE', path: `/me/oauth-grants/${GRANT}`, query: {} });
    expect(JSON.parse(h.io.out())).toEqual(grant);
  });

  it('revoke on a terminal, answered no: exit 1, "Nothing revoked.", nothing sent', async () => {
    let asked = '';
    const prompter = { confirm: (o: { message: string }) => ((asked = o.message), Promise.resolve(false)) };
    h = await seamHarness(undefined, { io: fakeIO({ tty: true, prompter }) });
    expect(await h.run(grantsRevoke, { args: [GRANT] })).toBe(1);
    expect(asked).toBe(`Revoke grant ${GRANT} and every token issued under it?`);
    expect(h.io.err()).toBe('Nothing revoked.\n');
    expect(h.stub.requests).toHaveLength(0);
  });
});
