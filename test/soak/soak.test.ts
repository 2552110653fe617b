import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { operationList } from '../../src/contract/operations.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('the soak in quick mode: every read, write and public operation answers as its route says, and the server is gone after', async () => {
  const r = await execa(process.execPath, [path.join(root, 'test/soak/run.mjs'), '--quick'], {
    reject: false,
    env: { NO_COLOR: '1' },
  });
  expect(r.stdout, r.stderr).toContain('soak: PASS');
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toMatch(/unexpected answers: 0; server exit code 0/);
  // Quick mode ends once every operation of the mix was answered ten times under load.
  expect(Number(/every operation answered at least (\d+) times under load/.exec(r.stdout)?.[1])).toBeGreaterThanOrEqual(
    10,
  );
  // The mix comes from the operations table: every GET the demo owner can read is probed and passed.
  const reads = /read: (.*)/.exec(r.stdout)![1].split(', ');
  const gets = operationList.filter((o) => o.method === 'GET').map((o) => o.operationId);
  expect(reads.sort()).toEqual(gets.sort());
  expect(/write: (.*)/.exec(r.stdout)![1]).toContain('createListing');
  const pid = Number(/server pid (\d+)/.exec(r.stdout)![1]);
  expect(alive(pid)).toBe(false);
}, 90_000);
