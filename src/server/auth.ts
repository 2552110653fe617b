import { createHash, timingSafeEqual } from 'node:crypto';
import type { AnyOperation } from '../contract/operations.js';
import type { Page, ReadTx, SortKey, StoreEngine } from '../store/engine/interface.js';
import { tokenId } from '../store/fixtures/import.js';
import { isGrantToken, withGrant, type StoredToken } from '../store/oauth-tokens.js';
import type { TokenRecord, UserRecord, WorkspaceRecord } from '../store/records.js';
import { CLI_CLIENT_ID, CLI_CLIENT_NAME } from './oauth/models/client.js';
import { ProblemError } from './problems.js';

/** Who is calling, once the token checks out. */
export interface AuthContext {
  token: TokenRecord;
  user: UserRecord;
  /** The workspace the request names, as read with the token (absent: it names none, or another caller made this). */
  workspace?: { id: string; record: WorkspaceRecord | undefined };
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

/**
 * Finds and checks the bearer token, in one read of the store: the token, its grant (OAuth tokens
 * this server issued), its user and, when the request names one, the workspace its membership is
 * checked against (`requireMembership`). Tokens are stored only as SHA-256 hashes.
 */
export async function authenticate(
  db: StoreEngine,
  header: string | undefined,
  audience: string = API_AUDIENCE,
  workspaceId?: string,
): Promise<AuthContext> {
  if (!header) throw unauthenticated();
  const parsed = parseBearer(header);
  if (!parsed) throw invalidToken('malformed (expected `Authorization: Bearer <token>`)');
  const { digest } = parsed;
  return db.read(async (tx) => {
    const stored = await tx.get('tokens', parsed.id);
    // Compare the full digest in constant time: the id named only a prefix.
    if (!stored || !timingSafeEqual(storedDigest(stored), digest)) throw invalidToken('not recognised');
    if (stored.revoked_at) throw invalidToken('revoked');
    if (stored.expires_at && new Date(stored.expires_at).getTime() <= (await tx.now()))
      throw invalidToken(`expired (at ${stored.expires_at})`);
    // Tokens this server issued belong to an authorization: revoking it (or its application) ends them all.
    const rec = await liveTokenRecord(tx, stored);
    if (!rec) throw invalidToken('revoked');
    // The stored record says what a token is, whatever its text looks like (docs/security.md#oauth).
    if (isOAuthToken(rec) && rec.audience !== audience) throw invalidToken('issued for another audience');
    const user = await tx.get('users', rec.user_id);
    if (!user) throw invalidToken('not recognised');
    const auth: AuthContext = { token: rec, user };
    if (workspaceId) auth.workspace = { id: workspaceId, record: await tx.get('workspaces', workspaceId) };
    return auth;
  });
}

/**
 * A stored token as a full record, or undefined when it belongs to a grant that is revoked or gone
 * (revoking a grant ends its tokens at once). Tokens that kept copies of their grant (stored before
 * they named it) come back as they are.
 */
async function liveTokenRecord(tx: ReadTx, rec: StoredToken): Promise<TokenRecord | undefined> {
  if (!rec.grant_id) return isGrantToken(rec) ? undefined : rec;
  const grant = await tx.get('oauth_grants', rec.grant_id);
  if (!grant || grant.revoked_at) return undefined;
  if (!isGrantToken(rec)) return rec;
  const name =
    grant.client_id === CLI_CLIENT_ID
      ? CLI_CLIENT_NAME
      : ((await tx.get('oauth_apps', grant.client_id))?.name ?? grant.client_id);
  return withGrant(rec, grant, name);
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

/** How many of a user's workspaces one page of `workspacesByMember` reads. */
const MEMBER_PAGE = 100;

/**
 * The workspaces a token reaches: its user's memberships (the index of workspaces by member, by
 * name), narrowed by OAuth grants.
 */
export async function reachableWorkspaces(
  tx: ReadTx,
  auth: AuthContext,
): Promise<Array<{ workspace: WorkspaceRecord; role: string }>> {
  const out: Array<{ workspace: WorkspaceRecord; role: string }> = [];
  const granted = auth.token.workspace_ids;
  let after: SortKey | null = null;
  for (;;) {
    const page: Page<WorkspaceRecord> = await tx.page('workspaces', 'workspacesByMember', {
      partition: auth.user.id,
      after,
      limit: MEMBER_PAGE,
      filter: (w) => !granted || granted.includes(w.id),
    });
    for (const w of page.items) {
      const m = w.members.find((x) => x.user_id === auth.user.id);
      if (m) out.push({ workspace: w, role: m.role });
    }
    if (!page.more) return out;
    after = page.last;
  }
}

/**
 * 403 `not_a_member` unless the token's user belongs to the workspace (and OAuth grants it). The
 * workspace is the one `authenticate` read with the token when the request named it, else read now.
 */
export async function requireMembership(
  db: StoreEngine,
  auth: AuthContext,
  workspaceId: string,
): Promise<WorkspaceRecord> {
  const w =
    auth.workspace?.id === workspaceId
      ? auth.workspace.record
      : await db.read((tx) => tx.get('workspaces', workspaceId));
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
