import type { Ability } from '../../../contract/enums.js';
import type { WriteTx } from '../../../store/engine/interface.js';
import { hashToken, tokenId } from '../../../store/fixtures/import.js';
import type { GrantTokenRecord } from '../../../store/oauth-tokens.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
import { newSecret } from '../../ids.js';
import { ACCESS_SECONDS, iso } from '../time.js';

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * Stores a new access token of `grant` (narrowed to `abilities`), expiring ACCESS_SECONDS after
 * `nowMs` (the write's `tx.now()`), and returns it. The record names its grant and copies nothing
 * of it: a refresh writes it, with the refresh token issued beside it, and docs/security.md#oauth
 * wants a refresh small.
 */
export async function putAccessToken(
  tx: WriteTx,
  nowMs: number,
  grant: OAuthGrantRecord,
  abilities: Ability[],
  refresh?: { generation: number; refresh_sha256: string },
): Promise<string> {
  const token = newSecret('wcm_oat_');
  const sha = hashToken(token);
  const narrowed = grant.abilities.some((a) => !abilities.includes(a));
  const rec: GrantTokenRecord = {
    id: tokenId(sha),
    token_sha256: sha,
    grant_id: grant.id,
    expires_at: iso(nowMs, ACCESS_SECONDS),
    ...(narrowed ? { abilities } : {}),
    ...refresh,
  };
  await tx.create('tokens', rec);
  return token;
}

/** The token endpoint's answer. */
export const issued = (access: string, refresh: string, abilities: Ability[]): IssuedTokens => ({
  access_token: access,
  token_type: 'Bearer',
  expires_in: ACCESS_SECONDS,
  refresh_token: refresh,
  scope: abilities.join(' '),
});
