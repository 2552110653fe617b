import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

/** Vitest global setup: makes the run's scratch directory (see vitest.config.ts) and removes it at the end. */
export default function setup(): () => void {
  const scratch = process.env.WCM_TEST_SCRATCH;
  if (scratch) mkdirSync(path.join(scratch, 'config'), { recursive: true, mode: 0o700 });
  return () => {
    if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  };
}
