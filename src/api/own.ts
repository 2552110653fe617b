import type { RecordTypes, StoreEngine } from '../store/engine/interface.js';
import { txTimestamp } from '../server/context.js';
import { notFound } from '../server/problems.js';

/**
 * Reads of one workspace's records of `c`: another workspace's record is as unknown as a missing
 * one (`code`). `patch` reads, merges (at the store's time) and writes in one transaction (the read
 * locks the record), so two concurrent patches both land.
 */
export function ownRecords<C extends 'forms' | 'pages'>(c: C, code: `${string}_not_found`) {
  type R = RecordTypes[C];
  const own = (rec: R | undefined, workspace: string, id: string): R => {
    if (!rec || rec.workspace_id !== workspace) throw notFound(code, id);
    return rec;
  };
  return {
    get: async (db: StoreEngine, workspace: string, id: string) =>
      own(await db.read((tx) => tx.get(c, id)), workspace, id),
    patch: (db: StoreEngine, workspace: string, id: string, update: (rec: R, now: string) => R) =>
      db.write(async (tx) => tx.put(c, update(own(await tx.get(c, id), workspace, id), await txTimestamp(tx)))),
  };
}
