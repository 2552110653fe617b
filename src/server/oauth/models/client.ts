import { hashToken } from '../../../store/fixtures/import.js';
import type { ReadTx } from '../../../store/engine/interface.js';
import type { OAuthAppRecord } from '../../../store/records.js';
import { newSecret } from '../../ids.js';
import { iso } from '../time.js';

/** The built-in public client of `wcm auth login --web`: any loopback redirect, any port (RFC 8252 §7.3). */
export const CLI_CLIENT_ID = 'wcm-cli';
/** The name `wcm-cli` is shown with (consent, grants, tokens). */
export const CLI_CLIENT_NAME = 'wcm (command line)';

/** An application as the flow sees it: a stored one, or the built-in `wcm-cli`. */
export interface Client {
  id: string;
  name: string;
  type: 'public' | 'confidential';
  redirect_uris: string[];
  secretSha256: string | null;
  builtIn: boolean;
  /** Registered by itself (RFC 7591), not by a workspace member: its name and redirects are unverified. */
  dynamic: boolean;
}

const CLI_CLIENT: Client = Object.freeze({
  id: CLI_CLIENT_ID,
  name: CLI_CLIENT_NAME,
  type: 'public',
  redirect_uris: [],
  secretSha256: null,
  builtIn: true,
  dynamic: false,
});

/** The client with this id, read in `tx`: the built-in `wcm-cli`, or a stored application. */
export async function findClient(tx: ReadTx, clientId: string | undefined): Promise<Client | undefined> {
  if (!clientId) return undefined;
  if (clientId === CLI_CLIENT_ID) return CLI_CLIENT;
  const app = await tx.get('oauth_apps', clientId);
  return app && clientOf(app);
}

/** A stored application as the flow sees it. */
export function clientOf(app: OAuthAppRecord): Client {
  return {
    id: app.id,
    name: app.name,
    type: app.type,
    redirect_uris: app.redirect_uris,
    secretSha256: app.client_secret_sha256,
    builtIn: false,
    dynamic: app.workspace_id === null,
  };
}

/** The name an application is shown by: the built-in client's, a stored one's, else its id. */
export const clientName = (app: OAuthAppRecord | undefined, clientId: string): string =>
  clientId === CLI_CLIENT_ID ? CLI_CLIENT_NAME : (app?.name ?? clientId);

/**
 * A new registered application's record and, for a confidential one, its secret (shown once).
 * `nowMs` is the store's clock (`tx.now()`) of the write that creates it.
 */
export function newApp(
  nowMs: number,
  a: {
    name: string;
    redirect_uris: string[];
    type: 'public' | 'confidential';
    workspace_id: string | null;
    created_by?: string;
  },
): { record: OAuthAppRecord; secret?: string } {
  const secret = a.type === 'confidential' ? newSecret('wcm_secret_') : undefined;
  const record: OAuthAppRecord = {
    id: newSecret('wcm_app_').slice(0, 8 + 32),
    name: a.name,
    type: a.type,
    redirect_uris: a.redirect_uris,
    client_secret_sha256: secret ? hashToken(secret) : null,
    workspace_id: a.workspace_id,
    ...(a.created_by ? { created_by: a.created_by } : {}),
    created_at: iso(nowMs),
  };
  return { record, secret };
}
