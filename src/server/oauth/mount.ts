import { ABILITIES, type Ability } from '../../contract/enums.js';
import type { AnyOperation } from '../../contract/operations.js';
import { redirectUriProblem } from '../../contract/oauth.js';
import type { Store } from '../../store/store.js';
import type { App, AppRequest, AppResponse, Mount } from '../app.js';
import type { Clock, RequestInfo } from '../context.js';
import { ProblemError } from '../problems.js';
import type { RateLimiter } from '../ratelimit.js';
import { FormError, html, htmlResponse, layout, messagePage, parseForm, redirect } from '../web/html.js';
import { checkCsrf, type Sessions } from '../web/session.js';
import { signIn, targetUrl, type SignedIn } from '../web/signin.js';
import {
  audienceOf, exchangeCode, findClient, issueCode, newApp, OAuthError, parseScope, redirectAllowed, refreshTokens, revokeToken, secretMatches,
  type Client,
} from './core.js';

export const OAUTH = '/oauth';

/** Each ability in words (the contract's table), for the consent page. */
export const ABILITY_WORDS: Record<Ability, string> = {
  'workspaces:read': 'Read workspaces, teams, domains, settings and connections',
  'workspaces:write': 'Create and manage workspaces, teams, domains, settings and connections',
  'content:read': 'Read buttons, forms, lists, pages, booking types and knowledge',
  'content:write': 'Create, update, publish and remove content',
  'engagements:read': 'Read submissions, subscribers, bookings, callbacks, calls, reviews and conversations',
  'engagements:manage': 'Reply to and manage engagement records',
  'actions:request': 'Request protected actions that can still require human confirmation',
};

/** RFC 8414 metadata: everything a client needs to find the endpoints. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${OAUTH}/authorize`,
    token_endpoint: `${origin}${OAUTH}/token`,
    revocation_endpoint: `${origin}${OAUTH}/revoke`,
    registration_endpoint: `${origin}${OAUTH}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: [...ABILITIES],
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 metadata of one of the two protected resources. */
export function protectedResourceMetadata(origin: string, resource: 'v1' | 'mcp') {
  return {
    resource: `${origin}/${resource}`,
    authorization_servers: [origin],
    scopes_supported: [...ABILITIES],
    bearer_methods_supported: ['header'],
    resource_name: resource === 'mcp' ? 'wcm MCP server' : 'Workspace Contact Management API v1',
  };
}

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}): AppResponse => ({
  status,
  headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Pragma: 'no-cache', 'X-Content-Type-Options': 'nosniff', ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});
const oauthError = (e: OAuthError, extra: Record<string, string> = {}) => jsonResponse(e.status, { error: e.error, error_description: e.description }, extra);

/** `/.well-known/…`: the discovery documents, no token needed, readable from any origin. */
export function wellKnownMount(): Mount {
  return {
    prefix: '/.well-known',
    handle(_req, info, app) {
      const doc =
        info.path === '/.well-known/oauth-authorization-server' ? authorizationServerMetadata(info.origin)
        : info.path === '/.well-known/oauth-protected-resource' || info.path === '/.well-known/oauth-protected-resource/v1' || info.path === '/.well-known/oauth-protected-resource/api/v1'
          ? protectedResourceMetadata(info.origin, 'v1')
        : info.path === '/.well-known/oauth-protected-resource/mcp' ? protectedResourceMetadata(info.origin, 'mcp')
        : undefined;
      if (!doc) return app.fail(new ProblemError('route_not_found', { detail: `No document at \`${info.path}\`.` }), info);
      if (info.method !== 'GET' && info.method !== 'HEAD') return app.fail(new ProblemError('method_not_allowed', { detail: 'Discovery documents answer GET.', headers: { Allow: 'GET, HEAD' } }), info);
      return jsonResponse(200, doc, { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
    },
  };
}

/** A checked authorization request: what the consent page shows and the code will remember. */
interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  state: string | undefined;
  abilities: Ability[];
  scope: string | undefined;
  resource: string | undefined;
  audience: string;
  challenge: string;
}

type Checked = { ok: AuthorizationRequest } | { page: AppResponse } | { redirect: AppResponse };

const AUTHORIZE_FIELDS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource'] as const;

/** `redirect_uri` with the answer's parameters, always with `iss` (RFC 9207) and `state` when one came. */
function back(redirectUri: string, params: Record<string, string | undefined>, issuer: string): AppResponse {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  u.searchParams.set('iss', issuer);
  return redirect(u.toString());
}

const errorPage = (title: string, message: string) =>
  messagePage(400, title, `${message} For your safety you are not sent back to the application.`);

export interface OAuthOptions {
  store: Store;
  clock: Clock;
  sessions: Sessions;
  loopback: boolean;
  rateLimiter?: RateLimiter;
}

/** `/oauth/…`: authorize (sign-in and consent pages), token, revoke and dynamic registration. */
export function oauthMount(options: OAuthOptions): Mount {
  const { store, clock, sessions, loopback } = options;
  const auth = signIn({ prefix: OAUTH, loopback, store, sessions, clock, purpose: 'to authorize an application to use your account.' });

  /** Checks the parameters in this order: client and redirect URI first (a page), the rest by redirect. */
  function check(p: Record<string, string | undefined>, issuer: string, origin: string): Checked {
    const client = findClient(store, p.client_id);
    if (!client) return { page: errorPage('Unknown application', `No application has the client id \`${p.client_id ?? ''}\`.`) };
    if (!redirectAllowed(client, p.redirect_uri)) {
      return { page: errorPage('Redirect address not registered', `\`${p.redirect_uri ?? '(none)'}\` is not a redirect URI registered for ${client.name}.`) };
    }
    const redirectUri = p.redirect_uri!;
    const fail = (error: string, description: string): Checked => ({ redirect: back(redirectUri, { error, error_description: description, state: p.state }, issuer) });
    if (p.response_type !== 'code') return fail('unsupported_response_type', 'Only `response_type=code` is supported.');
    if (!p.code_challenge) return fail('invalid_request', 'PKCE is required: send `code_challenge` and `code_challenge_method=S256`.');
    if (p.code_challenge_method !== 'S256') return fail('invalid_request', 'Only `code_challenge_method=S256` is supported.');
    if (!/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge)) return fail('invalid_request', 'The `code_challenge` must be a base64url SHA-256 (43 characters).');
    const abilities = parseScope(p.scope);
    if (!abilities || !abilities.length) return fail('invalid_scope', `Unknown scope; the scopes are: ${ABILITIES.join(' ')}.`);
    const audience = audienceOf(p.resource, origin);
    if (!audience) return fail('invalid_target', `\`resource\` must be ${origin}/v1 or ${origin}/mcp.`);
    return { ok: { client, redirectUri, state: p.state, abilities, scope: p.scope, resource: p.resource, audience, challenge: p.code_challenge } };
  }

  function consentPage(r: AuthorizationRequest, signed: SignedIn, info: RequestInfo, hidden: Record<string, string | undefined>, problem?: string): AppResponse {
    const workspaces = [...store.values('workspaces')]
      .filter((w) => w.members.some((m) => m.user_id === signed.user.id))
      .sort((a, b) => a.name.localeCompare(b.name));
    const only = workspaces.length === 1;
    const target = new URL(r.redirectUri);
    const body = html`<section class="panel signin consent">
<h1>Authorize ${r.client.name}</h1>
<p class="sub"><strong>${r.client.name}</strong> wants to use this server as <strong>${signed.user.name}</strong> (${signed.user.email})${r.audience === 'wcm-mcp' ? ' through its MCP endpoint' : ''}.</p>
${problem ? html`<div class="alert" role="alert">${problem}</div>` : ''}
<form method="post" action="${OAUTH}/authorize">
<input type="hidden" name="csrf" value="${signed.session.csrf}">
${AUTHORIZE_FIELDS.map((k) => (hidden[k] !== undefined ? html`<input type="hidden" name="${k}" value="${hidden[k]}">` : ''))}
<h2>It will be able to</h2>
<ul class="abilities">${r.abilities.map((a) => html`<li><code>${a}</code> ${ABILITY_WORDS[a]}</li>`)}</ul>
<fieldset><legend>In these workspaces</legend>
${workspaces.length ? workspaces.map((w) => html`<label class="check"><input type="checkbox" name="workspace_${w.id}" value="on"${only ? html` checked` : ''}> ${w.name}</label>`) : html`<p>You are not a member of any workspace.</p>`}
</fieldset>
<p class="sub">Afterwards you go back to <code>${target.origin}</code>.</p>
<div class="actions"><button type="submit" name="decision" value="approve" class="primary">Authorize</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>
</section>`;
    // Chromium applies form-action to the redirect that follows the POST: allow the app's origin.
    return htmlResponse(problem ? 400 : 200, layout({ title: `Authorize ${r.client.name}`, body, home: `${OAUTH}/authorize`, user: { name: signed.user.name, email: signed.user.email, signOut: signed.signOut } }), {
      headers: { 'X-Request-Id': info.id },
      csp: { 'form-action': `'self' ${target.origin}` },
    });
  }

  async function authorize(req: AppRequest, info: RequestInfo): Promise<AppResponse> {
    const issuer = info.origin;
    if (info.method === 'GET' || info.method === 'HEAD') {
      const url = targetUrl(req);
      const p: Record<string, string | undefined> = {};
      for (const k of AUTHORIZE_FIELDS) {
        const all = url?.searchParams.getAll(k) ?? [];
        if (all.length > 1) return errorPage('Invalid request', `The parameter \`${k}\` was sent more than once.`);
        p[k] = all[0];
      }
      const c = check(p, issuer, info.origin);
      if ('page' in c) return c.page;
      if ('redirect' in c) return c.redirect;
      const signed = auth.requireSession(req, info);
      if (!('user' in signed)) return signed;
      return consentPage(c.ok, signed, info, p);
    }
    if (info.method !== 'POST') return messagePage(405, 'Method not allowed', 'The authorization endpoint answers GET and POST.', { headers: { Allow: 'GET, HEAD, POST' } });
    let form: Record<string, string>;
    try {
      form = parseForm(info.rawBody);
    } catch (err) {
      return messagePage(400, 'Invalid form', err instanceof FormError ? err.message : 'The form could not be read.');
    }
    const signed = auth.requireSession(req, info);
    if (!('user' in signed)) return messagePage(403, 'Signed out', 'Your session ended before you decided. Start again from the application.');
    if (!checkCsrf(signed.session, form.csrf)) return messagePage(403, 'Form expired', 'The form was not issued to this session (CSRF check). Start again from the application.');
    const p: Record<string, string | undefined> = {};
    for (const k of AUTHORIZE_FIELDS) p[k] = form[k];
    const c = check(p, issuer, info.origin);
    if ('page' in c) return c.page;
    if ('redirect' in c) return c.redirect;
    const r = c.ok;
    if (form.decision === 'deny') return back(r.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: r.state }, issuer);
    if (form.decision !== 'approve') return messagePage(400, 'Invalid form', 'Choose Authorize or Deny.');
    const member = new Set([...store.values('workspaces')].filter((w) => w.members.some((m) => m.user_id === signed.user.id)).map((w) => w.id));
    const ticked = Object.keys(form).filter((k) => k.startsWith('workspace_') && form[k] === 'on').map((k) => k.slice('workspace_'.length));
    if (ticked.some((w) => !member.has(w))) return messagePage(400, 'Invalid form', 'A workspace on the form is not one of yours.');
    if (!ticked.length) return consentPage(r, signed, info, p, 'Tick at least one workspace, or deny.');
    const code = await issueCode(store, clock, {
      client_id: r.client.id, redirect_uri: r.redirectUri, user_id: signed.user.id, abilities: r.abilities, workspace_ids: ticked.sort(),
      resource: r.resource ?? '', audience: r.audience, code_challenge: r.challenge,
    });
    return back(r.redirectUri, { code, state: r.state }, issuer);
  }

  /** The client of a token or revocation request: HTTP Basic, or `client_id` (+ `client_secret`) in the form. */
  function authenticateClient(info: RequestInfo, form: Record<string, string>): Client {
    const header = info.headers.authorization;
    const basic = typeof header === 'string' && /^Basic /i.test(header) ? header.slice(6).trim() : undefined;
    let id = form.client_id;
    let secret = form.client_secret;
    if (basic !== undefined) {
      if (secret !== undefined) throw new OAuthError('invalid_request', 'Use one way to authenticate the client: HTTP Basic or `client_secret`, not both.');
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const at = decoded.indexOf(':');
      if (at < 0) throw new OAuthError('invalid_client', 'The Basic credentials are malformed.');
      try {
        const basicId = decodeURIComponent(decoded.slice(0, at));
        if (id !== undefined && id !== basicId) throw new OAuthError('invalid_request', '`client_id` differs from the Basic credentials.');
        id = basicId;
        secret = decodeURIComponent(decoded.slice(at + 1));
      } catch (err) {
        if (err instanceof OAuthError) throw err;
        throw new OAuthError('invalid_client', 'The Basic credentials are malformed.');
      }
    }
    if (!id) throw new OAuthError('invalid_request', 'The `client_id` parameter is missing.');
    const client = findClient(store, id);
    if (!client) throw new OAuthError('invalid_client', `No application has the client id \`${id}\`.`);
    if (client.type === 'confidential' && !secretMatches(client, secret)) throw new OAuthError('invalid_client', 'The client secret is missing or wrong.');
    return client;
  }

  function readForm(info: RequestInfo): Record<string, string> {
    const type = String(info.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
    try {
      return parseForm(info.rawBody);
    } catch (err) {
      throw new OAuthError('invalid_request', err instanceof FormError ? err.message : 'The form could not be read.');
    }
  }

  async function token(info: RequestInfo): Promise<AppResponse> {
    if (info.method !== 'POST') return jsonResponse(405, { error: 'invalid_request', error_description: 'The token endpoint answers POST.' }, { Allow: 'POST' });
    try {
      const form = readForm(info);
      const client = authenticateClient(info, form);
      const origin = info.origin;
      if (form.grant_type === 'authorization_code') return jsonResponse(200, await exchangeCode(store, clock, client, { ...form, origin }));
      if (form.grant_type === 'refresh_token') return jsonResponse(200, await refreshTokens(store, clock, client, { ...form, origin }));
      throw new OAuthError('unsupported_grant_type', form.grant_type ? `\`${form.grant_type}\` is not supported: use authorization_code or refresh_token.` : 'The `grant_type` parameter is missing.');
    } catch (err) {
      if (err instanceof OAuthError) return oauthError(err, err.status === 401 ? { 'WWW-Authenticate': 'Basic realm="wcm"' } : {});
      throw err;
    }
  }

  async function revoke(info: RequestInfo): Promise<AppResponse> {
    if (info.method !== 'POST') return jsonResponse(405, { error: 'invalid_request', error_description: 'The revocation endpoint answers POST.' }, { Allow: 'POST' });
    try {
      const form = readForm(info);
      if (!form.token) throw new OAuthError('invalid_request', 'The `token` parameter is missing.');
      const client = form.client_id !== undefined || info.headers.authorization ? authenticateClient(info, form) : undefined;
      await revokeToken(store, clock, client?.id, form.token);
      return jsonResponse(200, undefined);
    } catch (err) {
      if (err instanceof OAuthError) return oauthError(err);
      throw err;
    }
  }

  /** RFC 7591, for MCP clients that register themselves: public clients, loopback or https redirects. */
  async function register(info: RequestInfo, app: App): Promise<AppResponse> {
    if (info.method !== 'POST') return jsonResponse(405, { error: 'invalid_request', error_description: 'The registration endpoint answers POST.' }, { Allow: 'POST' });
    let limitHeaders: Record<string, string> = {};
    try {
      limitHeaders = options.rateLimiter?.before({ operationId: 'registerOAuthClient' } as AnyOperation, info).headers ?? {};
    } catch (err) {
      return app.fail(err, info);
    }
    const bad = (error: string, description: string) => jsonResponse(400, { error, error_description: description }, limitHeaders);
    let meta: Record<string, unknown>;
    try {
      meta = JSON.parse(info.rawBody.toString('utf8'));
    } catch {
      return bad('invalid_client_metadata', 'The body must be a JSON object.');
    }
    if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return bad('invalid_client_metadata', 'The body must be a JSON object.');
    const uris = meta.redirect_uris;
    if (!Array.isArray(uris) || !uris.length || uris.length > 10 || !uris.every((u) => typeof u === 'string')) {
      return bad('invalid_redirect_uri', '`redirect_uris` must be a list of 1 to 10 URLs.');
    }
    for (const u of uris as string[]) {
      const why = redirectUriProblem(u);
      if (why) return bad('invalid_redirect_uri', `\`${u}\` ${why}.`);
    }
    const method = meta.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') return bad('invalid_client_metadata', 'Only public clients may register themselves: `token_endpoint_auth_method` must be `none`.');
    for (const [k, allowed] of [['grant_types', ['authorization_code', 'refresh_token']], ['response_types', ['code']]] as const) {
      const v = meta[k];
      if (v !== undefined && (!Array.isArray(v) || v.some((x) => !(allowed as readonly string[]).includes(x)))) {
        return bad('invalid_client_metadata', `\`${k}\` may only hold ${allowed.join(', ')}.`);
      }
    }
    const rawName = typeof meta.client_name === 'string' ? meta.client_name.trim() : '';
    const name = (rawName || 'Unnamed MCP client').slice(0, 120);
    const { record } = newApp(clock, { name, redirect_uris: uris as string[], type: 'public', workspace_id: null });
    await store.transact((tx) => tx.put('oauth_apps', record));
    return jsonResponse(201, {
      client_id: record.id,
      client_id_issued_at: Math.floor(new Date(record.created_at).getTime() / 1000),
      client_name: name,
      redirect_uris: record.redirect_uris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }, limitHeaders);
  }

  return {
    prefix: OAUTH,
    async handle(req, info, app) {
      const own = auth.handle(req, info);
      if (own) return own;
      switch (info.path) {
        case `${OAUTH}/authorize`:
          return authorize(req, info);
        case `${OAUTH}/token`:
          return token(info);
        case `${OAUTH}/revoke`:
          return revoke(info);
        case `${OAUTH}/register`:
          return register(info, app);
        default:
          return messagePage(404, 'Not found', 'There is no page here. OAuth clients begin with the authorization endpoint, /oauth/authorize (see /.well-known/oauth-authorization-server).');
      }
    },
  };
}
