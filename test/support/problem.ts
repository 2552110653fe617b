import { expect } from 'vitest';

/** The members every problem+json body has (docs/api-behaviour.md, errors). */
export const PROBLEM_MEMBERS = [
  'code',
  'detail',
  'errors',
  'instance',
  'request_id',
  'resolution',
  'status',
  'title',
  'type',
];

/**
 * Asserts a response is the problem `code` with `status`: problem+json, every member present and
 * typed, `X-Request-Id` equal to `request_id`, `instance` the request path. Returns the body.
 */
export function expectProblem(
  res: { status: number; headers: Record<string, string | string[] | undefined>; body: string },
  status: number,
  code: string,
  instance?: string,
): Record<string, any> {
  const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v]));
  let body: Record<string, any>;
  try {
    body = JSON.parse(res.body);
  } catch {
    throw new Error(`not JSON (status ${res.status}): ${res.body.slice(0, 200)}`);
  }
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(String(headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(Object.keys(body).sort()).toEqual(PROBLEM_MEMBERS);
  expect(body.status).toBe(status);
  expect(body.type).toBe(`urn:wcm:problem:${code}`);
  for (const m of ['title', 'detail', 'resolution', 'instance', 'request_id']) {
    expect(typeof body[m], m).toBe('string');
    expect(body[m].length, m).toBeGreaterThan(0);
  }
  expect(typeof body.errors).toBe('object');
  expect(Array.isArray(body.errors)).toBe(false);
  expect(headers['x-request-id']).toBe(body.request_id);
  if (instance !== undefined) expect(body.instance).toBe(instance);
  return body;
}
