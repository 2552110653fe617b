import { defineCommand } from '../../src/cli/command.js';
import { UsageError, apiErrorOf } from '../../src/cli/errors.js';
import { readTokenFromStdin, type Me } from '../../src/cli/auth.js';
import { printJson, style, terminalText } from '../../src/cli/output.js';
import { DEFAULT_BASE_URL, normalizeBaseUrl, tokenOrigin } from '../../src/cli/target.js';

interface LoginOptions {
  withToken?: boolean;
  web?: boolean;
  clientId?: string;
  scopes?: string;
  timeout?: string;
}

export default defineCommand<LoginOptions>({
  path: ['auth', 'login'],
  summary: 'Check a token with GET /v1/me and save it in a profile',
  description:
    'The token comes from standard input with --with-token, or from a hidden prompt on a terminal; it\n' +
    'never goes on the command line. It is checked before anything is saved. The default workspace is\n' +
    '--workspace (one the token can reach), else the only one it can reach, else asked on a terminal.\n' +
    'Global flags used: --profile (default `default`), --base-url, --workspace.',
  examples: [
    'wcm auth login',
    'echo "$WCM_PAT" | wcm auth login --with-token --base-url https://api.example.com/v1 --workspace 775050e9-98e8-4600-8d0f-afce4b67e137',
    'wcm auth login --profile staging --base-url https://staging.example.com/v1',
  ],
  options: [
    { flags: '--with-token', description: 'read the token from standard input' },
    { flags: '--web', description: 'log in through the browser (OAuth, PKCE) instead of a pasted token' },
    { flags: '--client-id <id>', description: 'with --web: the OAuth client (default wcm-cli)' },
    { flags: '--scopes <list>', description: 'with --web: comma- or space-separated abilities (default all seven)' },
    { flags: '--timeout <seconds>', description: 'with --web: how long to wait for the browser (default 300)' },
  ],
  async run(opts, f) {
    const profiles = await f.profiles();
    const name = f.globals.profile || f.env.WCM_PROFILE || 'default';
    const existing = profiles.get(name);
    const baseUrl = f.globals.baseUrl
      ? normalizeBaseUrl(f.globals.baseUrl, '`--base-url`')
      : f.env.WCM_BASE_URL
        ? normalizeBaseUrl(f.env.WCM_BASE_URL, 'WCM_BASE_URL')
        : (existing?.base_url ?? DEFAULT_BASE_URL);

    let token: string;
    let oauth:
      | {
          refresh_token?: string;
          expires_at?: string;
          scope?: string;
          client_id: string;
          token_endpoint: string;
          revocation_endpoint?: string;
        }
      | undefined;
    if (opts.web) {
      if (opts.withToken) throw new UsageError('`--web` and `--with-token` are two ways to log in: pass one.');
      const seconds = opts.timeout === undefined ? 300 : Number(opts.timeout);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
        throw new UsageError(
          `\`--timeout\` must be a whole number of seconds from 1 to 3600; received \`${opts.timeout}\`.`,
        );
      const { ALL_SCOPES, webLogin } = await import('../../src/cli/oauth-login.js');
      const scopes = opts.scopes ? opts.scopes.split(/[\s,]+/).filter(Boolean) : [...ALL_SCOPES];
      const unknown = scopes.filter((x) => !ALL_SCOPES.includes(x));
      if (unknown.length)
        throw new UsageError(
          `\`--scopes\`: unknown ${unknown.map((x) => `\`${x}\``).join(', ')}.`,
          `Scopes are the abilities: ${ALL_SCOPES.join(', ')}.`,
        );
      const clientId = opts.clientId ?? 'wcm-cli';
      const { tokens, as } = await webLogin({
        baseUrl,
        clientId,
        scopes,
        timeoutMs: seconds * 1000,
        io: f.io,
        env: f.env,
      });
      token = tokens.access_token;
      oauth = {
        client_id: clientId,
        token_endpoint: as.token_endpoint,
        ...(as.revocation_endpoint ? { revocation_endpoint: as.revocation_endpoint } : {}),
        ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
        ...(tokens.expires_in ? { expires_at: new Date(Date.now() + tokens.expires_in * 1000).toISOString() } : {}),
        ...(tokens.scope ? { scope: tokens.scope } : {}),
      };
    } else if (opts.withToken) {
      token = await readTokenFromStdin(f);
    } else if (f.io.canPrompt()) {
      const p = await f.io.prompter();
      token = (await p.password({ message: `Token for ${baseUrl}` })).trim();
      if (!token) throw new UsageError('No token entered; nothing was saved.');
    } else {
      throw new UsageError(
        'No token: `wcm auth login` needs `--with-token` (token on standard input) when it cannot prompt.',
        'Example: `echo "$TOKEN" | wcm auth login --with-token`.',
      );
    }

    const client = await f.client({ baseUrl, token });
    let me: Me;
    try {
      me = (await client.call('getMe')).body.data;
    } catch (err) {
      const api = apiErrorOf(err);
      if (api && (api.status === 401 || api.status === 403)) {
        api.problem.resolution = `Nothing was saved. ${api.problem.resolution ?? 'Check the token and the base URL.'}`;
        throw api;
      }
      throw err;
    }

    let workspace: string | undefined;
    let note: string | undefined;
    const reachable = me.workspaces;
    // A login again to the same origin keeps what belongs to that origin (the control plane's admin
    // token, the signing secret, a default workspace the token still reaches); another origin drops them.
    const sameOrigin = !!existing && tokenOrigin(existing.base_url) === tokenOrigin(baseUrl);
    const kept =
      existing && sameOrigin
        ? {
            ...(existing.admin_token ? { admin_token: existing.admin_token } : {}),
            ...(existing.webhook_secret ? { webhook_secret: existing.webhook_secret } : {}),
          }
        : {};
    const keptWorkspace =
      existing && sameOrigin && existing.workspace && reachable.some((x) => x.id === existing.workspace)
        ? existing.workspace
        : undefined;
    if (f.globals.workspace) {
      const w = reachable.find((x) => x.id === f.globals.workspace || x.name === f.globals.workspace);
      if (!w) {
        throw new UsageError(
          `\`--workspace ${f.globals.workspace}\` is not a workspace this token can reach; nothing was saved.`,
          reachable.length
            ? `It can reach: ${reachable.map((x) => `${x.id} (${terminalText(x.name)})`).join(', ')}.`
            : 'It can reach no workspace: ask an owner to add you.',
        );
      }
      workspace = w.id;
    } else if (reachable.length === 1) {
      workspace = reachable[0].id;
    } else if (keptWorkspace && !f.io.canPrompt()) {
      workspace = keptWorkspace;
    } else if (reachable.length > 1 && f.io.canPrompt()) {
      const p = await f.io.prompter();
      workspace = await p.select({
        message: 'Default workspace',
        choices: reachable.map((x) => ({
          name: `${terminalText(x.name)} (${x.id})`,
          value: x.id,
          description: `role ${terminalText(x.role)}`,
        })),
        default: keptWorkspace,
      });
    } else if (reachable.length > 1) {
      note = `No default workspace saved: the token reaches ${reachable.length}. Pick one with \`wcm auth login --profile ${name} --workspace ID\`, or pass \`--workspace ID\` (or WCM_WORKSPACE) per command.`;
    } else {
      note = 'The token reaches no workspace yet; workspace commands will fail until an owner adds you.';
    }

    const { openKeychain, saveProfileToken } = await import('../../src/cli/credentials.js');
    const keychain = await openKeychain(f.env);
    const currentBefore = profiles.current();
    const storage = await saveProfileToken(
      profiles,
      name,
      { base_url: baseUrl, ...(workspace ? { workspace } : {}), ...kept },
      token,
      keychain,
    );
    if (oauth) await (await import('../../src/cli/credentials.js')).saveOAuthState(profiles, name, oauth, keychain);
    await (await import('../../src/cli/config.js')).useWhenNoneCurrent(profiles, name, currentBefore, f.io.stderr);
    if (existing && existing.base_url !== baseUrl)
      f.io.stderr.write(`Profile ${name} pointed at ${existing.base_url}; it now points at ${baseUrl}.\n`);
    const isCurrent = profiles.current() === name;

    if (f.globals.json) {
      printJson(f.io.stdout, {
        profile: name,
        base_url: baseUrl,
        user: me.user,
        abilities: me.token.abilities,
        workspaces: reachable,
        workspace: workspace ?? null,
        config_file: profiles.path,
        token_storage: storage,
      });
    } else {
      const s = await style(f.io);
      const out = f.io.stdout;
      out.write(
        `${s.green('✓')} Logged in to ${baseUrl} as ${terminalText(me.user.name)} <${terminalText(me.user.email)}>; saved as profile ${s.bold(name)} in ${profiles.path}\n`,
      );
      out.write(
        `Token stored in ${storage === 'keychain' ? 'the OS keychain' : `${profiles.path} (mode 0600; no OS keychain here)`}; it is sent only to ${new URL(baseUrl).origin}.\n`,
      );
      // Names and roles are the server's text: control characters never reach the terminal.
      out.write(`Abilities: ${terminalText(me.token.abilities.join(', ')) || 'none'}\n`);
      out.write(`Workspaces this token can reach (${reachable.length}):\n`);
      for (const x of reachable)
        out.write(
          `  ${x.id === workspace ? '*' : ' '} ${terminalText(x.id)}  ${terminalText(x.name)}  (${terminalText(x.role)})\n`,
        );
      if (workspace) out.write(`Default workspace: ${workspace}\n`);
      if (!isCurrent)
        out.write(
          `Use it with \`--profile ${name}\`, or make it the current profile with \`wcm profile use ${name}\`.\n`,
        );
    }
    if (note) f.io.stderr.write(`${note}\n`);
    return 0;
  },
});
