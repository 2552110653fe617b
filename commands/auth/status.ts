import { defineCommand } from '../../src/cli/command.js';
import type { Factory } from '../../src/cli/factory.js';
import type { Target } from '../../src/cli/target.js';
import { withheldTokenError } from '../../src/cli/target.js';
import { notLoggedIn } from '../../src/cli/auth.js';
import { printFields, printJson } from '../../src/cli/output.js';

export default defineCommand({
  path: ['auth', 'status'],
  summary: "Show the target, the user, the token's abilities and workspaces, and where each came from",
  description:
    'The token itself is never shown (`wcm auth token` prints it). Exit 4 when there is no token or the server refuses it.',
  async run(_opts, f) {
    const t = await f.target();
    if (t.withheld) throw withheldTokenError(t);
    if (!t.token) throw notLoggedIn(t.baseUrl, t.profile);
    const client = await f.client();
    const me = await client.call('getMe').then(
      (r) => r.body.data,
      async (err) => {
        // Server down: the saved configuration is still worth showing (it is what to check), then the failure.
        if ((err as { kind?: string }).kind !== 'unreachable') throw err;
        await printOffline(f, t);
        throw err;
      },
    );
    // For `auth login --web` profiles: what the grant holds, never the tokens themselves.
    const o = t.profile && t.storage !== 'environment' ? (await f.profiles()).get(t.profile)?.oauth : undefined;
    const oauth = o
      ? {
          expires_at: o.expires_at ?? null,
          scopes: o.scope?.split(' ') ?? null,
          refresh_token_stored_in: o.refresh_ref ? 'keychain' : o.refresh_token ? 'file' : 'none',
        }
      : null;
    if (f.globals.json) {
      printJson(f.io.stdout, {
        profile: t.profile ?? null,
        base_url: t.baseUrl,
        base_url_source: t.sources.baseUrl,
        token_source: t.sources.token,
        token_storage: t.storage,
        oauth,
        user: me.user,
        token: {
          name: me.token.name,
          kind: me.token.kind,
          abilities: me.token.abilities,
          expires_at: me.token.expires_at,
        },
        workspace: t.workspace ?? null,
        workspace_source: t.sources.workspace,
        workspaces: me.workspaces,
      });
      return 0;
    }
    await printFields(f.io, [
      ['profile', t.profile ?? '(none)'],
      ['base url', `${t.baseUrl} (from ${t.sources.baseUrl})`],
      ['user', `${me.user.name} <${me.user.email}> (${me.user.id})`],
      [
        'token',
        `${me.token.name}, ${me.token.kind} (from ${t.sources.token})${me.token.expires_at ? `, expires ${me.token.expires_at}` : ''}`,
      ],
      ['stored in', await storedIn(f, t)],
      ...(oauth
        ? [
            [
              'oauth',
              `scopes ${oauth.scopes?.join(' ') ?? '(as granted)'}; access token expires ${oauth.expires_at ?? '(unknown)'}, renewed by itself; refresh token in ${oauth.refresh_token_stored_in}`,
            ] as [string, string],
          ]
        : []),
      ['abilities', me.token.abilities.join(', ') || 'none'],
      [
        'workspace',
        t.workspace ? `${t.workspace} (from ${t.sources.workspace})` : '(none: pass --workspace or set WCM_WORKSPACE)',
      ],
      ['workspaces', me.workspaces.map((w) => `${w.id} ${w.name} (${w.role})`).join('; ') || 'none'],
    ]);
    return 0;
  },
});

/** Where the token is kept, in words. */
const storedIn = async (f: Factory, t: Target): Promise<string> =>
  t.storage === 'keychain'
    ? 'the OS keychain'
    : t.storage === 'file'
      ? `${(await f.profiles()).path} (mode 0600)`
      : 'WCM_TOKEN (not stored)';

/** What `auth status` can say without the server: where it points, as whom it would go, and that it is unreachable. */
async function printOffline(f: Factory, t: Target): Promise<void> {
  const stored = await storedIn(f, t);
  if (f.globals.json) {
    printJson(f.io.stdout, {
      profile: t.profile ?? null,
      base_url: t.baseUrl,
      base_url_source: t.sources.baseUrl,
      token_source: t.sources.token,
      token_storage: t.storage,
      workspace: t.workspace ?? null,
      workspace_source: t.sources.workspace,
      server: 'unreachable',
    });
    return;
  }
  await printFields(f.io, [
    ['profile', t.profile ?? '(none)'],
    ['base url', `${t.baseUrl} (from ${t.sources.baseUrl})`],
    ['token', `saved (from ${t.sources.token}); not checked: the server is unreachable`],
    ['stored in', stored],
    ['workspace', t.workspace ? `${t.workspace} (from ${t.sources.workspace})` : '(none)'],
    ['server', 'unreachable'],
  ]);
}
