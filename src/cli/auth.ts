import type { Factory } from './factory.js';
import { CliError, EXIT, UsageError } from './errors.js';

/** What `GET /v1/me` answers (src/api/account/schemas.ts). */
export interface Me {
  user: { id: string; name: string; email: string };
  token: { name: string; kind: 'personal' | 'oauth'; abilities: string[]; expires_at: string | null };
  workspaces: Array<{ id: string; name: string; role: string }>;
}

/** Reads a token piped on standard input (`--with-token`); refuses a terminal so nothing waits. */
export async function readTokenFromStdin(f: Factory): Promise<string> {
  if (f.io.isStdinTTY) {
    throw new UsageError(
      '`--with-token` reads the token from standard input, which is a terminal here.',
      'Pipe it in: `wcm auth login --with-token < token.txt`, or drop `--with-token` to be prompted.',
    );
  }
  let text = '';
  for await (const chunk of f.io.stdin) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  const token = text.trim();
  if (!token)
    throw new UsageError(
      '`--with-token`: standard input was empty.',
      'Pipe the token in: `echo "$TOKEN" | wcm auth login --with-token`.',
    );
  if (/\s/.test(token))
    throw new UsageError(
      '`--with-token`: standard input holds more than one word; a token has no spaces or line breaks.',
    );
  return token;
}

/** The profile a command acts on: `--profile`, WCM_PROFILE, the current one, else `default`. */
export function profileNameOf(f: Factory, current: string | undefined): string {
  return f.globals.profile || f.env.WCM_PROFILE || current || 'default';
}

/** A usage error for a profile that is not saved: the known ones, or `none` when there are none. */
export function noSuchProfile(name: string, known: readonly string[], none: string): UsageError {
  const names = [...known].sort();
  return new UsageError(
    `Profile \`${name}\` does not exist.`,
    names.length ? `Known profiles: ${names.join(', ')}.` : none,
  );
}

/** A missing-token error, exit 4, naming where a token could have come from. */
export function notLoggedIn(baseUrl: string, profile?: string): CliError {
  return new CliError(
    `Not logged in: no token for ${baseUrl}${profile ? ` (profile ${profile})` : ''}.`,
    EXIT.auth,
    'Run `wcm auth login` (or set WCM_TOKEN).',
  );
}
