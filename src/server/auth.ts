import { createHash, timingSafeEqual } from 'node:crypto';
import type { AnyOperation } from '../contract/operations.js';
import { tokenId } from '../store/fixture.js';
import type { StoredToken } from '../store/oauth-tokens.js';
import type { TokenRecord, UserRecord, WorkspaceRecord } from '../store/records.js';
import type { Store } from '../store/store.js';
import { tokenRecordOf } from './oauth/models/access-token.js';
import { ProblemError } from './problems.js';

/** Who is calling, once the token checks out. */
export interface AuthContext {
  token: TokenRecord;
  user: UserRecord;
}

/** The audience OAuth access tokens must be bound to at /v1 … */
export const API_AUDIENCE = 'wcm-api-v1';
/** … and at /mcp (a token is bound to exactly one). */
export const MCP_AUDIENCE = 'wcm-mcp';

const unauthenticated = () =>
  new ProblemError('unauthenticated', {
    detail: 'This operation needs a bearer token and none was sent.',
    headers: { 'WWW-Authenticate': 'Bearer realm="wcm"' },
  });
const invalidToken = (why: string) =>
  new ProblemError('invalid_token', {
    detail: `The bearer token is ${why}.`,
    headers: { 'WWW-Authenticate': 'Bearer realm="wcm", error="invalid_token"' },
  });

interface ParsedBearer {
  digest: Buffer;
  /** The store id the digest maps to. */
  id: string;
}

/**
 * SHA-256 of the token, per raw Authorization header: a client sends the same header on every
 * request, and hashing it was a visible share of a small request's CPU. Only the pure function of
 * the header is cached, never the decision: the token record (revoked, expired, deleted, replaced)
 * is looked up and checked on every request. Bounded; emptied whole when full.
 */
const BEARER_CACHE_MAX = 1024;
const bearerCache = new Map<string, ParsedBearer>();

function parseBearer(header: string): ParsedBearer | null {
  const hit = bearerCache.get(header);
  if (hit) return hit;
  const m = /^Bearer +(\S+) *$/i.exec(header);
  if (!m) return null;
  const digest = createHash('sha256').update(m[1]).digest();
  const parsed: ParsedBearer = { digest, id: tokenId(digest.toString('hex')) };
  if (bearerCache.size >= BEARER_CACHE_MAX) bearerCache.clear();
  bearerCache.set(header, parsed);
  return parsed;
}

/**
 * The stored digest as bytes, decoded once per token record: records are immutable (a change
 * replaces the record, which is then decoded afresh), so this is a pure function of the record.
 */
const storedDigests = new WeakMap<StoredToken, Buffer>();
function storedDigest(rec: StoredToken): Buffer {
  let d = storedDigests.get(rec);
  if (!d) storedDigests.set(rec, (d = Buffer.from(rec.token_sha256, 'hex')));
  return d;
}

/** Finds and checks the bearer token. Tokens are stored only as SHA-256 hashes. */
export function authenticate(
  store: Store,
  header: string | undefined,
  now: Date,
  audience: string = API_AUDIENCE,
): AuthContext {
  if (!header) throw unauthenticated();
  const parsed = parseBearer(header);
  if (!parsed) throw invalidToken('malformed (expected `Authorization: Bearer <token>`)');
  const { digest } = parsed;
  const stored = store.get('tokens', parsed.id);
  // Compare the full digest in constant time: the map lookup used only a prefix.
  if (!stored || !timingSafeEqual(storedDigest(stored), digest)) throw invalidToken('not recognised');
  if (stored.revoked_at) throw invalidToken('revoked');
  if (stored.expires_at && new Date(stored.expires_at).getTime() <= now.getTime())
    throw invalidToken(`expired (at ${stored.expires_at})`);
  // Tokens this server issued belong to an authorization: revoking it (or its application) ends them all.
  const rec = tokenRecordOf(store, stored);
  if (!rec) throw invalidToken('revoked');
  // The stored record says what a token is, whatever its text looks like (docs/security.md#oauth).
  if (isOAuthToken(rec) && rec.audience !== audience) throw invalidToken('issued for another audience');
  const user = store.get('users', rec.user_id);
  if (!user) throw invalidToken('not recognised');
  return { token: rec, user };
}

/** An OAuth token (bound to an audience and to granted workspaces), by its stored record. */
export const isOAuthToken = (rec: TokenRecord): boolean =>
  rec.audience !== undefined || rec.workspace_ids !== undefined || rec.grant_id !== undefined;

/** 403 unless the token has the operation's ability, and is a personal token where the operation needs one. */
export function requireAbility(auth: AuthContext, op: AnyOperation): void {
  if (op.personal && isOAuthToken(auth.token)) {
    throw new ProblemError('personal_token_required', {
      detail: `\`${op.operationId}\` manages OAuth grants and applications: use a personal access token (or the dashboard), not an OAuth token.`,
    });
  }
  if (op.ability && !auth.token.abilities.includes(op.ability)) {
    throw new ProblemError('insufficient_ability', {
      detail: `\`${op.operationId}\` needs the \`${op.ability}\` ability; this token has ${auth.token.abilities.length ? auth.token.abilities.map((a) => `\`${a}\``).join(', ') : 'none'}.`,
    });
  }
}

/** The workspaces a token reaches: its user's memberships, narrowed by OAuth grants. */
export function reachableWorkspaces(
  store: Store,
  auth: AuthContext,
): Array<{ workspace: WorkspaceRecord; role: string }> {
  const out: Array<{ workspace: WorkspaceRecord; role: string }> = [];
  for (const w of store.values('workspaces')) {
    const m = w.members.find((x) => x.user_id === auth.user.id);
    if (!m) continue;
    if (auth.token.workspace_ids && !auth.token.workspace_ids.includes(w.id)) continue;
    out.push({ workspace: w, role: m.role });
  }
  return out;
}

/** 403 `not_a_member` unless the token's user belongs to the workspace (and OAuth grants it). */
export function requireMembership(store: Store, auth: AuthContext, workspaceId: string): WorkspaceRecord {
  const w = store.get('workspaces', workspaceId);
  const member = w?.members.some((m) => m.user_id === auth.user.id);
  const granted = !auth.token.workspace_ids || auth.token.workspace_ids.includes(workspaceId);
  if (!w || !member || !granted) {
    // The same answer whether or not the workspace exists: no probing for workspace ids.
    throw new ProblemError('not_a_member', {
      detail: `The token's user is not a member of workspace \`${workspaceId}\`${member && !granted ? ' (the OAuth token has no grant for it)' : ''}.`,
    });
  }
  return w;
}
