import { describe, expect, it } from 'vitest';
import { operationList } from '../../src/contract/operations.js';
import { routeOf, routes } from '../../src/contract/routes.js';

// The client's zod-free route table is a copy of five fields of the operations table: this keeps
// the operations table the single source of truth.
describe('routes: the client\'s copy of the operations table', () => {
  it('has exactly the operations of the contract', () => {
    expect(Object.keys(routes).sort()).toEqual(operationList.map((o) => o.operationId).sort());
  });

  it.each(operationList.map((o) => [o.operationId, o] as const))('%s: same method, path, access, idempotency and extension mark', (id, op) => {
    // On failure, paste the expected entry into src/contract/routes.ts.
    const route = { method: op.method, path: op.path, access: op.access, idempotent: !!op.idempotent, ...(op.extension ? { extension: true } : {}) };
    expect(routeOf(id)).toStrictEqual(route);
  });

  it('knows no other names (not even Object.prototype\'s)', () => {
    expect(routeOf('toString')).toBeUndefined();
    expect(routeOf('noSuchOperation')).toBeUndefined();
  });
});
