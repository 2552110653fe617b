import type { ReadTx, StoreEngine, WriteTx } from '../../../store/engine/interface.js';
import { hashToken } from '../../../store/fixtures/import.js';
import type { OAuthCodeRecord } from '../../../store/records.js';
import { newSecret } from '../../ids.js';
import { CODE_SECONDS, iso } from '../time.js';

/** A code's record id, from the code's hash (so a lookup needs no scan). */
export const codeId = (sha: string) => `code_${sha.slice(0, 24)}`;

type CodeRequest = Omit<OAuthCodeRecord, 'id' | 'code_sha256' | 'expires_at' | 'used_at' | 'grant_id'>;

/** What the user approved on the consent page, turned into a single-use code; it expires by the store's clock. */
export async function issueCodeIn(tx: WriteTx, c: CodeRequest): Promise<string> {
  const code = newSecret('wcm_code_');
  const sha = hashToken(code);
  await tx.create('oauth_codes', {
    ...c,
    id: codeId(sha),
    code_sha256: sha,
    expires_at: iso(await tx.now(), CODE_SECONDS),
    used_at: null,
    grant_id: null,
  });
  return code;
}

/** `issueCodeIn` as a write of its own. */
export const issueCode = (db: StoreEngine, c: CodeRequest): Promise<string> => db.write((tx) => issueCodeIn(tx, c));

/** The stored code a presented one hashes to, if any (inside a write, its row is then locked). */
export async function findCode(tx: ReadTx, code: string): Promise<OAuthCodeRecord | undefined> {
  const sha = hashToken(code);
  const rec = await tx.get('oauth_codes', codeId(sha));
  return rec && rec.code_sha256 === sha ? rec : undefined;
}
