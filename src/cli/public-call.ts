import type { Envelope } from '../client/client.js';
import type { OperationId } from '../contract/table.js';
import type { DataOf } from '../contract/types.js';
import type { OptionSpec } from './command.js';
import { UsageError } from './errors.js';
import type { Factory } from './factory.js';

/** Shared by the public commands (`commerce pay`, `agents opened`). */
export const idempotencyKeyOption: OptionSpec = {
  flags: '--idempotency-key <key>',
  description: 'Idempotency-Key to send (8–120 visible ASCII); generated when omitted and printed on stderr',
};

const KEY = /^[\x21-\x7e]{8,120}$/;

/**
 * The key for this request: the one given, or a new UUID. Either way it goes to stderr, so a user
 * whose connection dropped can replay the exact request and get the first answer back.
 */
export function announceIdempotencyKey(f: Factory, given: string | undefined, command: string[]): string {
  if (given !== undefined && !KEY.test(given)) {
    throw new UsageError(
      `\`--idempotency-key\` must be 8 to 120 visible ASCII characters; received ${given.length} character${given.length === 1 ? '' : 's'}.`,
      'A UUID works: `--idempotency-key $(uuidgen)`.',
    );
  }
  const key = given ?? crypto.randomUUID();
  // The whole command, quoted for a POSIX shell: pasted as is, it replays this very request.
  const replay = [...command, '--idempotency-key', key].map(shellWord).join(' ');
  f.io.stderr.write(given ? `idempotency key: ${key}\n` : `idempotency key: ${key} (to replay: ${replay})\n`);
  return key;
}

/** `word` as one POSIX shell word: bare when it is safe, else single-quoted. */
export const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;

/** The flags a command was given, as argv words in their order of declaration (for a replay line). */
export function givenFlags(values: Record<string, string | undefined>): string[] {
  return Object.entries(values).flatMap(([flag, v]) => (v === undefined ? [] : [flag, v]));
}

export function integerFlag(flag: string, raw: string): number {
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n))
    throw new UsageError(`\`${flag}\` must be a whole number; received \`${raw}\`.`);
  return n;
}

/** Calls a public operation without a token; the client resends the same key on every retry. */
export async function publicCall<K extends OperationId>(
  f: Factory,
  operationId: K,
  input: { params: Record<string, string>; body: unknown; idempotencyKey: string },
) {
  const client = await f.client({ requireToken: false });
  const res = await client.call(operationId, input);
  if (res.headers['idempotent-replayed'] === 'true') {
    f.io.stderr.write('replayed: the server returned the first response for this key (nothing new was created)\n');
  }
  return res as { status: number; headers: Record<string, string>; body: Envelope<DataOf<K>> };
}
