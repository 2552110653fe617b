import type { StoreEngine, WriteTx } from '../../../store/engine/interface.js';
import type { SortKey } from '../../../store/sorted-index.js';
import { iso, REFRESH_SECONDS } from '../time.js';
import { refreshStateIn, topResponseIn } from './grant.js';

const DAY_MS = 24 * 3600 * 1000;
/** A revoked family is kept a week (the user sees it in their grants), then removed. */
export const REVOKED_KEEP_MS = 7 * DAY_MS;
/** A self-registered client nobody used for 30 days is removed (docs/security.md#oauth). */
export const UNUSED_CLIENT_MS = 30 * DAY_MS;
/** Records of each kind one prune looks at, at most. */
export const PRUNE_BATCH = 100;
/** Self-registered clients one prune looks at, at most (each reads its grants). */
const CLIENT_BATCH = 20;
/** A client with more grants than this is in use: its grants are not all read. */
const CLIENT_GRANTS = 50;

/** Where the scans that keep some records of their range go on next time (null: from the start). */
export interface PruneCursor {
  tokens: SortKey | null;
  clients: SortKey | null;
}

export interface PruneResult {
  removed: number;
  /** Whether a range had more than one prune reads: call again soon. */
  more: boolean;
  cursor: PruneCursor;
}

/**
 * One bounded write of OAuth housekeeping (docs/security.md#oauth): expired codes (used or not: a
 * code is refused after 60 s either way), families revoked more than a week ago (with their
 * tokens), expired access tokens, and self-registered clients unused for 30 days. Each kind is read
 * along an index by time, only the range already past, at most PRUNE_BATCH records of it, so a
 * prune costs the same whatever the collections hold. An expired access token whose record holds a
 * live grant's current refresh token stays; so that such tokens do not hold the scan up, it goes on
 * from `cursor` (and likewise for clients, most of which stay). A grant's last use is its last
 * refresh (the refresh token's expiry, 30 days on), so tracking use costs no write.
 */
export async function pruneOAuth(
  db: StoreEngine,
  cursor: PruneCursor = { tokens: null, clients: null },
  limit = PRUNE_BATCH,
): Promise<PruneResult> {
  return db.write(async (tx) => {
    const now = await tx.now();
    const out: PruneResult = { removed: 0, more: false, cursor: { tokens: null, clients: null } };
    const gone = async (c: Parameters<WriteTx['delete']>[0], id: string) => {
      await tx.delete(c, id);
      out.removed++;
    };

    const codes = await tx.page('oauth_codes', 'oauthCodesByExpiry', { partition: '*', limit, to: [iso(now)] });
    for (const c of codes.items) await gone('oauth_codes', c.id);
    out.more ||= codes.more;

    // A family revoked long ago goes with every token it holds (a big one over several prunes).
    const families = await tx.page('oauth_grants', 'oauthGrantsByRevoked', {
      partition: '*',
      limit,
      to: [iso(now - REVOKED_KEEP_MS)],
    });
    for (const g of families.items) {
      const tokens = await tx.page('tokens', 'tokensByGrant', { partition: g.id, limit });
      for (const t of tokens.items) await gone('tokens', t.id);
      if (tokens.more) out.more = true;
      else await gone('oauth_grants', g.id);
    }
    out.more ||= families.more;

    const expired = await tx.page('tokens', 'tokensByExpiry', {
      partition: '*',
      limit,
      to: [iso(now)],
      after: cursor.tokens,
    });
    for (const tok of expired.items) {
      const grant = tok.grant_id ? await tx.get('oauth_grants', tok.grant_id) : undefined;
      // A token without an expiry (stored with copies of its grant) goes only with its grant.
      if (!tok.expires_at) {
        if (!grant) await gone('tokens', tok.id);
        continue;
      }
      // An expired access token goes, unless its record holds the live grant's current refresh token.
      const current = grant && !grant.revoked_at && (await topResponseIn(tx, grant))?.id === tok.id;
      if (!current) await gone('tokens', tok.id);
    }
    if (expired.more) out.cursor.tokens = expired.last;
    out.more ||= expired.more;

    // Self-registered clients (no workspace: partition '') registered more than 30 days ago, newest first.
    const clients = await tx.page('oauth_apps', 'oauthAppsByWorkspace', {
      partition: '',
      limit: Math.min(limit, CLIENT_BATCH),
      from: [iso(now - UNUSED_CLIENT_MS)],
      after: cursor.clients,
    });
    for (const app of clients.items) {
      const grants = await tx.page('oauth_grants', 'oauthGrantsByClient', { partition: app.id, limit: CLIENT_GRANTS });
      if (grants.more) continue;
      let lastUse = Date.parse(app.created_at);
      for (const g of grants.items) {
        const refreshExpires = (await refreshStateIn(tx, g)).expires_at;
        const used = Math.max(
          Date.parse(g.created_at),
          refreshExpires ? Date.parse(refreshExpires) - REFRESH_SECONDS * 1000 : 0,
        );
        lastUse = Math.max(lastUse, used);
      }
      if (lastUse < now - UNUSED_CLIENT_MS) await gone('oauth_apps', app.id);
    }
    if (clients.more) out.cursor.clients = clients.last;
    out.more ||= clients.more;
    return out;
  });
}

/** Prunes now and then, after requests, never on a timer: at most once per `everyMs` of this process's time. */
export class OAuthPruner {
  private last = Date.now();
  private running = false;
  private cursor: PruneCursor = { tokens: null, clients: null };
  constructor(
    private readonly db: StoreEngine,
    private readonly everyMs = 5 * 60_000,
    private readonly log: (err: unknown) => void = () => undefined,
  ) {}

  /** Starts a prune in the background when one is due (a request made records that expire). */
  poke(): void {
    if (this.running || Date.now() - this.last < this.everyMs) return;
    this.running = true;
    pruneOAuth(this.db, this.cursor)
      .then((r) => {
        this.cursor = r.cursor;
        // More to do: the next request prunes again.
        this.last = r.more ? 0 : Date.now();
      })
      .catch((err: unknown) => {
        this.last = Date.now();
        this.log(err);
      })
      .finally(() => {
        this.running = false;
      });
  }
}
