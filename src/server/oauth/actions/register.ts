import type { AnyOperation } from '../../../contract/operations.js';
import { redirectUriProblem } from '../../../api/oauth/schemas.js';
import type { App, AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { newApp } from '../models/client.js';
import type { OAuthContext } from '../options.js';
import { jsonResponse } from '../responses.js';

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
/** Client metadata is a few hundred bytes; 16 KB leaves room for ten long redirect URIs (docs/security.md#oauth). */
const MAX_BODY = 16 * 1024;
const RESPONSE_TYPES = ['code'];

/** Why RFC 7591 client metadata is refused (`[error, description]`), or null when it is fine. */
function metadataProblem(meta: unknown): [string, string] | null {
  if (!meta || typeof meta !== 'object' || Array.isArray(meta))
    return ['invalid_client_metadata', 'The body must be a JSON object.'];
  const m = meta as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || !uris.length || uris.length > 10 || !uris.every((u) => typeof u === 'string')) {
    return ['invalid_redirect_uri', '`redirect_uris` must be a list of 1 to 10 URLs.'];
  }
  for (const u of uris as string[]) {
    const why = redirectUriProblem(u);
    if (why) return ['invalid_redirect_uri', `\`${u}\` ${why}.`];
  }
  const method = m.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    return [
      'invalid_client_metadata',
      'Only public clients may register themselves: `token_endpoint_auth_method` must be `none`.',
    ];
  for (const [k, allowed] of [
    ['grant_types', GRANT_TYPES],
    ['response_types', RESPONSE_TYPES],
  ] as const) {
    const v = m[k];
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => !allowed.includes(x))))
      return ['invalid_client_metadata', `\`${k}\` may only hold ${allowed.join(', ')}.`];
  }
  return null;
}

/** RFC 7591, for MCP clients that register themselves: public clients; https, loopback or private-use redirects. */
export async function register(ctx: OAuthContext, info: RequestInfo, app: App): Promise<AppResponse> {
  let limitHeaders: Record<string, string>;
  try {
    limitHeaders =
      (await ctx.rateLimiter?.before({ operationId: 'registerOAuthClient' } as AnyOperation, info))?.headers ?? {};
  } catch (err) {
    return app.fail(err, info);
  }
  const type = String(info.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/json') {
    return jsonResponse(
      415,
      {
        error: 'invalid_client_metadata',
        error_description: 'Send the client metadata as `Content-Type: application/json` (RFC 7591).',
      },
      limitHeaders,
    );
  }
  if (info.rawBody.length > MAX_BODY) {
    return jsonResponse(
      413,
      {
        error: 'invalid_client_metadata',
        error_description: `The client metadata is ${info.rawBody.length} bytes; at most ${MAX_BODY} are accepted.`,
      },
      limitHeaders,
    );
  }
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(info.rawBody.toString('utf8'));
  } catch {
    return jsonResponse(
      400,
      { error: 'invalid_client_metadata', error_description: 'The body must be a JSON object.' },
      limitHeaders,
    );
  }
  const problem = metadataProblem(meta);
  if (problem) return jsonResponse(400, { error: problem[0], error_description: problem[1] }, limitHeaders);
  const rawName = typeof meta.client_name === 'string' ? meta.client_name.trim() : '';
  const name = (rawName || 'Unnamed MCP client').slice(0, 120);
  // One write: the client's record, made with the store's time.
  const record = await ctx.db.write(async (tx) => {
    const { record: rec } = newApp(await tx.now(), {
      name,
      redirect_uris: meta.redirect_uris as string[],
      type: 'public',
      workspace_id: null,
    });
    return tx.create('oauth_apps', rec);
  });
  ctx.pruner?.poke();
  return jsonResponse(
    201,
    {
      client_id: record.id,
      client_id_issued_at: Math.floor(new Date(record.created_at).getTime() / 1000),
      client_name: name,
      redirect_uris: record.redirect_uris,
      token_endpoint_auth_method: 'none',
      grant_types: GRANT_TYPES,
      response_types: RESPONSE_TYPES,
    },
    limitHeaders,
  );
}
