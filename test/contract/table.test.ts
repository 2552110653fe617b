import { describe, expect, it } from 'vitest';
import { getOperation, operationList } from '../../src/contract/operations.js';
import { routeOf, routes } from '../../src/contract/table.js';

// The zod-free table is the one source of method, path, access and the rest; operations.ts only
// attaches schemas to it. These rows check the join, not a copy.
describe('the operations table', () => {
  it('every route has its schemas and nothing else is an operation', () => {
    expect(operationList.map((o) => o.operationId).sort()).toEqual(Object.keys(routes).sort());
    for (const op of operationList) expect(op.params.shape).toBeDefined();
  });

  it.each(operationList.map((o) => [o.operationId, o] as const))(
    '%s: the operation is its route plus its schemas',
    (id, op) => {
      expect(routeOf(id)).toBeDefined();
      for (const [k, v] of Object.entries(routeOf(id)!)) expect((op as unknown as Record<string, unknown>)[k]).toBe(v);
      // A path parameter is declared exactly when the path has its placeholder.
      expect(Object.keys(op.params.shape).sort()).toEqual([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
    },
  );

  it("knows no other names (not even Object.prototype's)", () => {
    expect(routeOf('toString')).toBeUndefined();
    expect(routeOf('noSuchOperation')).toBeUndefined();
    expect(getOperation('toString')).toBeUndefined();
    expect(getOperation('constructor')).toBeUndefined();
  });
});
