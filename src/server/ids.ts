import { randomBytes } from 'node:crypto';

/** The alphabet of every random id and secret the server makes. */
export const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix` + 40 random base62 characters (about 238 bits): tokens, secrets, codes. */
export function newSecret(prefix: string): string {
  let s = prefix;
  for (const b of randomBytes(40)) s += BASE62[b % 62];
  return s;
}

/** Random bytes drawn in batches (one randomBytes call per 256 ids, not per request). */
const ID_BYTES = 20;
let idPool = Buffer.alloc(0);
let idAt = 0;
const BASE62_BYTES = Buffer.from(BASE62, 'latin1');
/** The id is spelled into these bytes and read out as one string (not 20 concatenations). */
const idSpelling = Buffer.from(`req_${'x'.repeat(ID_BYTES)}`, 'latin1');

/** `req_` + 20 base62 characters. */
export function newRequestId(): string {
  if (idAt + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idAt = 0;
  }
  for (let i = 0; i < ID_BYTES; i++) idSpelling[4 + i] = BASE62_BYTES[idPool[idAt + i] % 62];
  idAt += ID_BYTES;
  return idSpelling.toString('latin1');
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** The client's `X-Request-Id` when it is usable (1–128 of `A-Za-z0-9._-`), else a new one. */
export function requestIdFor(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
}
