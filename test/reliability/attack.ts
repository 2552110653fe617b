// What every reliability test shares: the operations table turned into requests, the store as a
// comparable value, and the checks every error response must pass.
import net from 'node:net';
import { expect } from 'vitest';
import { z } from 'zod';
import { operationList, type AnyOperation } from '../../src/contract/operations.js';
import { App } from '../../src/server/app.js';
import { extendServer } from '../../src/server/extend.js';
import { handlers } from '../../src/api/handlers.js';
import { exportFixture } from '../../src/store/fixtures/import.js';
import type { Store } from '../../src/store/json/store.js';
import path from 'node:path';
import { demo, type InProcess } from '../support/server.js';
import { PROBLEM_MEMBERS } from '../support/problem.js';

/**
 * The App as `wcm serve` builds it (services and middleware of every area: payments, idempotency, rate
 * limits) over an in-process store, with a rate limit high enough not to hide what is behind it.
 */
export async function fullApp(s: InProcess): Promise<App> {
  const extra = await extendServer({
    db: s.db,
    clock: s.app.clock,
    options: { dataFile: path.join(s.dir, 'store.json'), rateLimit: 1_000_000_000, payments: 'local', env: {} },
  });
  return new App({ db: s.db, clock: s.app.clock, services: extra.services, use: extra.use });
}

export const ops = operationList;
export const bearerOps = operationList.filter((o) => o.access === 'bearer');
export const tokenOps = operationList.filter((o) => o.access === 'bearer' || o.access === 'token');

/** Whether this branch has a handler for the operation (others answer 501 after auth and validation). */
export const isImplemented = (op: AnyOperation) => Object.hasOwn(handlers, op.operationId);

/**
 * Ids of fixtures/demo.json, by the not-found code a route gives its path parameter (so `{list}` is a
 * listing for getListing and a knowledge list for listArticles): ones in workspace 1 that exist, and
 * ones that exist but belong to workspace 2 or 3. A new operation over known resources needs no edit.
 */
const VALID_BY_NOT_FOUND: Record<string, string> = {
  workspace_not_found: demo.ws1,
  form_not_found: demo.formCatering,
  page_not_found: demo.pageAcme,
  listing_not_found: 'a1a51204-8860-445f-a27b-3ddb86cc4014',
  knowledge_list_not_found: demo.knowledgeList,
  article_not_found: demo.article4Versions,
  version_not_found: '1',
  thread_not_found: demo.newestThread,
  offer_not_found: demo.offerFixedUsd,
  agent_not_found: demo.agent1,
  oauth_app_not_found: demo.oauthAppAcme,
  oauth_grant_not_found: demo.grantAda,
};
const FOREIGN_BY_NOT_FOUND: Record<string, string> = {
  form_not_found: 'c571bc30-2f5b-4fb3-92b7-2b1ab7c4cbf5', // ws3
  page_not_found: '50dc2aba-841a-4da0-9891-a1dd38cf8d76', // ws2
  listing_not_found: '35f4ebfa-876a-4d32-8367-658b4d49912e', // ws2
  knowledge_list_not_found: 'd0f90159-28a7-4444-9b58-0db2b35c52b4', // ws2
  article_not_found: 'b1e141f9-6644-410f-8a44-f68b88aefa33', // ws2 (in list d0f90159)
  thread_not_found: 'df4398f7-bd64-4fa8-88e1-17f9d298bf69', // ws2
  oauth_app_not_found: demo.oauthAppBlueFern, // ws2
  oauth_grant_not_found: demo.grantBo, // Bo's, not the owner's
};
const codeOf = (op: AnyOperation, name: string) => op.notFound?.[name] ?? `${name}_not_found`;
/** A valid id for parameter `name` of `op` (in workspace 1). */
export const validId = (op: AnyOperation, name: string): string | undefined => VALID_BY_NOT_FOUND[codeOf(op, name)];
/** An id for parameter `name` of `op` that exists in another workspace. */
export const foreignId = (op: AnyOperation, name: string): string | undefined => FOREIGN_BY_NOT_FOUND[codeOf(op, name)];

export const pathParams = (op: AnyOperation) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** `/v1/…` for an operation, each parameter from `params` (URL-encoded) or the valid id. */
export function urlFor(op: AnyOperation, params: Record<string, string> = {}, base = '/v1'): string {
  return base + op.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? validId(op, n) ?? 'x'));
}

/** The member names of an operation's body schema (empty when it has none). */
export function bodyKeys(op: AnyOperation): string[] {
  const b = op.body as unknown;
  if (b instanceof z.ZodObject) return Object.keys(b.shape);
  return [];
}

/** A body the operation accepts (its route's example), so requests get past validation. */
export function validBody(op: AnyOperation): unknown {
  return op.example?.body ?? (op.body ? {} : undefined);
}

/** The whole store as one string: equal strings, equal state. */
export const storeState = (store: Store) => JSON.stringify(exportFixture(store));

/** Stack frames, file paths, module paths: nothing of the server's insides may reach a client. */
export const LEAK =
  /\/work\/|node_modules|\/home\/|\/tmp\/|file:\/\/|\n\s+at |\bat [\w$.<>]+ \(|\bat (node:|\/)|\.ts:\d+|\.js:\d+/;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const h = (a: Answer, name: string) => {
  const key = Object.keys(a.headers).find((k) => k.toLowerCase() === name);
  const v = key ? a.headers[key] : undefined;
  return Array.isArray(v) ? v[0] : v;
};
export const headerOf = h;

/**
 * The checks every answer passes: never a 500 (unless the test caused one on purpose), nosniff, and for
 * errors a problem+json with every member, `request_id` equal to X-Request-Id, no leaks.
 */
export function checkAnswer(a: Answer, context: string, opts: { internalError?: boolean } = {}): void {
  const why = `${context} → ${a.status} ${a.body.slice(0, 300)}`;
  expect(a.status, why).toBeGreaterThanOrEqual(200);
  if (opts.internalError) expect(a.status, why).toBe(500);
  else {
    expect(a.status, why).not.toBe(500);
    expect([501, 502, 503].includes(a.status) || a.status < 500, why).toBe(true);
  }
  expect(h(a, 'x-content-type-options'), why).toBe('nosniff');
  expect(a.body, why).not.toMatch(LEAK);
  if (a.status < 400) {
    expect(h(a, 'content-type'), why).toMatch(/^application\/json/);
    const j = JSON.parse(a.body);
    expect(j.meta?.request_id, why).toBe(h(a, 'x-request-id'));
    return;
  }
  expect(h(a, 'content-type'), why).toMatch(/^application\/problem\+json/);
  const p = JSON.parse(a.body);
  expect(Object.keys(p).sort(), why).toEqual(PROBLEM_MEMBERS);
  expect(p.status, why).toBe(a.status);
  expect(p.request_id, why).toBe(h(a, 'x-request-id'));
  expect(typeof p.code, why).toBe('string');
  expect(p.type, why).toContain(p.code);
  expect(typeof p.errors === 'object' && p.errors !== null && !Array.isArray(p.errors), why).toBe(true);
}

const PROTOS = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const protoKeys = () => PROTOS.map((p) => Object.getOwnPropertyNames(p).sort().join(','));
const baseline = protoKeys();
/** Nothing was added to the built-in prototypes. */
export function checkNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(probe.isAdmin).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
  expect(protoKeys()).toEqual(baseline);
}

export interface RawAnswer extends Answer {
  /** Milliseconds from connect to the first response byte (−1 if none came). */
  firstByteMs: number;
  /** Bytes of body the client managed to write before the answer or the close. */
  sent: number;
  closed: boolean;
}

/**
 * One HTTP/1.1 request written by hand on a socket: lets a test send what a well-behaved client
 * library refuses to (bad bytes, duplicate headers, a body trickled slowly).
 */
export function rawRequest(
  port: number,
  opts: {
    head: string | Buffer;
    body?: Buffer;
    chunkSize?: number;
    chunkDelayMs?: number;
    chunked?: boolean;
    timeoutMs?: number;
  },
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let firstByteMs = -1;
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ ...parse(buf), firstByteMs, sent, closed: true });
    };
    const timer = setTimeout(finish, opts.timeoutMs ?? 10_000);
    sock.on('data', (d) => {
      if (firstByteMs < 0) firstByteMs = Date.now() - started;
      buf = Buffer.concat([buf, d]);
      const parsed = parse(buf);
      if (parsed.complete || (isHead && parsed.status > 0)) finish();
    });
    sock.on('close', finish);
    sock.on('error', () => undefined);
    const isHead = Buffer.from(opts.head).subarray(0, 5).toString() === 'HEAD ';
    sock.on('connect', async () => {
      sock.write(opts.head);
      const body = opts.body;
      if (!body) return;
      const size = opts.chunkSize ?? body.length;
      for (let off = 0; off < body.length && !done && firstByteMs < 0; off += size) {
        const part = body.subarray(off, off + size);
        const ok = opts.chunked
          ? sock.write(`${part.length.toString(16)}\r\n`) && sock.write(part) && sock.write('\r\n')
          : sock.write(part);
        sent += part.length;
        if (!ok) await new Promise((r) => sock.once('drain', r));
        if (opts.chunkDelayMs) await new Promise((r) => setTimeout(r, opts.chunkDelayMs));
      }
      if (opts.chunked && !done && firstByteMs < 0) sock.write('0\r\n\r\n');
    });
  });
}

function parse(buf: Buffer): Answer & { complete: boolean } {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '', complete: false };
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const status = Number(lines[0].split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const len = Number(headers['content-length'] ?? -1);
  const body = buf.subarray(end + 4);
  const complete = len >= 0 && body.length >= len;
  return { status, headers, body: body.subarray(0, len >= 0 ? len : undefined).toString('utf8'), complete };
}

/** Title, template and items a crash/concurrency test writes, derived from the title alone. */
export function listingFor(title: string) {
  return { title, template_slug: 'faq', items: [{ title: `${title}/q`, description: `${title}/a`.repeat(20) }] };
}
