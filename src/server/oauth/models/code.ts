import { hashToken } from '../../../store/fixture.js';
import type { OAuthCodeRecord } from '../../../store/records.js';
import type { Store } from '../../../store/store.js';
import type { Clock } from '../../clock.js';
import { newSecret } from '../../ids.js';
import { CODE_SECONDS, iso } from '../time.js';

/** A code's record id, from the code's hash (so a lookup needs no scan). */
export const codeId = (sha: string) => `code_${sha.slice(0, 24)}`;

/** What the user approved on the consent page, turned into a single-use code. */
export async function issueCode(
  store: Store,
  clock: Clock,
  c: Omit<OAuthCodeRecord, 'id' | 'code_sha256' | 'expires_at' | 'used_at' | 'grant_id'>,
): Promise<string> {
  const code = newSecret('wcm_code_');
  const sha = hashToken(code);
  await store.transact((tx) =>
    tx.put('oauth_codes', {
      ...c,
      id: codeId(sha),
      code_sha256: sha,
      expires_at: iso(clock, CODE_SECONDS),
      used_at: null,
      grant_id: null,
    }),
  );
  return code;
}

/** The stored code a presented one hashes to, if any. */
export function findCode(store: Store, code: string): OAuthCodeRecord | undefined {
  const sha = hashToken(code);
  const rec = store.get('oauth_codes', codeId(sha));
  return rec && rec.code_sha256 === sha ? rec : undefined;
}
