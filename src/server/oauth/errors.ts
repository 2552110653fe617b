/** An RFC 6749 error: `{error, error_description}`, 400 (401 for `invalid_client`). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
  }
}
