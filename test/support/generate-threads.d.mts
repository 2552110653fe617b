// Types for generate-threads.mjs, so the tests that import it are type-checked (tsconfig.test.json).

import type { FullThread } from '../../src/store/threads.js';

export const DEMO_WS1: string;

/** A generated thread is a fixture thread as the store reads it, messages included. */
export type GeneratedThread = FullThread;

export function generateThreads(o: {
  count: number;
  workspaceId?: string;
  seed?: number;
  start?: string;
  starredShare?: number;
}): { version: 1; threads: GeneratedThread[] };
