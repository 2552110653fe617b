import { timingSafeEqual } from 'node:crypto';
import { hashToken } from '../../../store/fixtures/import.js';
import type { ReadTx } from '../../../store/engine/interface.js';
import type { RequestInfo } from '../../context.js';
import { OAuthError } from '../errors.js';
import { findClient, type Client } from '../models/client.js';

/** A confidential client's secret check (constant time); public clients have none to check. */
export function secretMatches(client: Client, secret: string | undefined): boolean {
  if (!client.secretSha256 || !secret) return false;
  return timingSafeEqual(Buffer.from(client.secretSha256, 'hex'), Buffer.from(hashToken(secret), 'hex'));
}

/** Whether the request carries HTTP Basic client credentials. */
export function triedBasic(info: RequestInfo): boolean {
  const header = info.headers.authorization;
  return typeof header === 'string' && /^Basic /i.test(header);
}

/** The id and secret of HTTP Basic (RFC 6749 §2.3.1: each form-urlencoded), or undefined without Basic. */
function basicCredentials(info: RequestInfo): { id: string; secret: string } | undefined {
  const header = info.headers.authorization;
  if (typeof header !== 'string' || !/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  if (at < 0) throw new OAuthError('invalid_client', 'The Basic credentials are malformed.');
  try {
    return { id: decodeURIComponent(decoded.slice(0, at)), secret: decodeURIComponent(decoded.slice(at + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'The Basic credentials are malformed.');
  }
}

/** The client of a token or revocation request: HTTP Basic, or `client_id` (+ `client_secret`) in the form. */
export async function authenticateClient(tx: ReadTx, info: RequestInfo, form: Record<string, string>): Promise<Client> {
  let id = form.client_id;
  let secret = form.client_secret;
  if (triedBasic(info) && secret !== undefined)
    throw new OAuthError(
      'invalid_request',
      'Use one way to authenticate the client: HTTP Basic or `client_secret`, not both.',
    );
  const basic = basicCredentials(info);
  if (basic) {
    if (id !== undefined && id !== basic.id)
      throw new OAuthError('invalid_request', '`client_id` differs from the Basic credentials.');
    ({ id, secret } = basic);
  }
  if (!id) throw new OAuthError('invalid_request', 'The `client_id` parameter is missing.');
  const client = await findClient(tx, id);
  if (!client) throw new OAuthError('invalid_client', `No application has the client id \`${id}\`.`);
  if (client.type === 'confidential' && !secretMatches(client, secret))
    throw new OAuthError('invalid_client', 'The client secret is missing or wrong.');
  return client;
}
