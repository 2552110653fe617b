import { createHash } from 'node:crypto';

/** RFC 7636 S256: what a verifier's challenge must be. */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** Why an authorization request's PKCE parameters are refused, or null when they are fine. */
export function challengeProblem(challenge: string | undefined, method: string | undefined): string | null {
  if (!challenge) return 'PKCE is required: send `code_challenge` and `code_challenge_method=S256`.';
  if (method !== 'S256') return 'Only `code_challenge_method=S256` is supported.';
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return 'The `code_challenge` must be a base64url SHA-256 (43 characters).';
  return null;
}

export const verifierMatches = (verifier: string, challenge: string): boolean => s256(verifier) === challenge;
