import { describe, expect, it } from 'vitest';
import { operationList } from '../../src/contract/operations.js';
import { routeOf, routes } from '../../src/contract/routes.js';

// The client's zod-free route table is a copy of four fields of the operations table: this keeps
// the operations table the single source of truth.
describe('routes: the client\'s copy of the operations table', () => {
  it('has exactly the operations of the contract', () => {
    expect(Object.keys(routes).sort()).toEqual(operationList.map((o) => o.operationId).sort());
  });

  it.each(operationList.map((o) => [o.operationId, o] as const))('%s: same method, path, access and idempotency', (id, op) => {
    // On failure, paste the expected entry into src/contract/routes.ts.
    expect(routeOf(id)).toEqual({ method: op.method, path: op.path, access: op.access, idempotent: !!op.idempotent });
  });

  it('knows no other names (not even Object.prototype\'s)', () => {
    expect(routeOf('toString')).toBeUndefined();
    expect(routeOf('noSuchOperation')).toBeUndefined();
  });
});
