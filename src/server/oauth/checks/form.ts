import type { RequestInfo } from '../../context.js';
import { FormError, parseForm } from '../../web/html.js';
import { OAuthError } from '../errors.js';

/** The parameters of a token or revocation request: form-urlencoded only (RFC 6749 §3.2). */
export function readForm(info: RequestInfo): Record<string, string> {
  const type = String(info.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  try {
    return parseForm(info.rawBody);
  } catch (err) {
    throw new OAuthError('invalid_request', err instanceof FormError ? err.message : 'The form could not be read.');
  }
}
