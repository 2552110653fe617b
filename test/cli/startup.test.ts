import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../support/server.js';

// Records every module URL the process loads: `module.register` hooks run on a loader thread and
// post each URL back over a MessagePort; at exit the list goes to stderr as one JSON line.
const HOOKS = `
let port;
export async function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }
`;
const REGISTER = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const loaded = [];
port1.on('message', (u) => loaded.push(u));
port1.unref();
register(new URL('./hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(loaded) + '\\n'));
`;

const HEAVY = [/node_modules\/stripe\//, /node_modules\/@inquirer\//, /node_modules\/undici\//, /node_modules\/zod\//, /node_modules\/conf\//, /\/dist\/src\/server\//, /\/dist\/src\/store\//, /\/dist\/src\/contract\//, /\/dist\/src\/client\//];

let dir: { dir: string; cleanup(): void };
beforeAll(() => {
  dir = tempDir('wcm-startup-');
  writeFileSync(path.join(dir.dir, 'hooks.mjs'), HOOKS);
  writeFileSync(path.join(dir.dir, 'register.mjs'), REGISTER);
});
afterAll(() => dir.cleanup());

async function loadedBy(args: string[]): Promise<{ urls: string[]; stdout: string; exitCode?: number }> {
  const r = await execa('node', ['--import', path.join(dir.dir, 'register.mjs'), path.join(ROOT, 'bin/wcm.js'), ...args], {
    reject: false,
    env: { NO_COLOR: '1', CI: 'true', WCM_CONFIG_DIR: dir.dir },
  });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  if (!line) throw new Error(`no LOADED line: ${r.stderr}`);
  return { urls: JSON.parse(line.slice(7)) as string[], stdout: r.stdout, exitCode: r.exitCode };
}

describe('startup cost', () => {
  it.each([['--version'], ['-V'], ['--help'], ['lists', '--help'], ['auth', 'login', '--help'], ['api', '--help']].map((a) => [a.join(' '), a] as const))('`wcm %s` loads none of stripe, inquirer, undici, zod, conf, the server, the store, the contract or the client', async (_label, args) => {
    const { urls, exitCode, stdout } = await loadedBy([...args]);
    expect(exitCode).toBe(0);
    expect(stdout.length).toBeGreaterThan(0);
    // The probe works: it sees the entry point itself.
    expect(urls.some((u) => u.endsWith('/bin/wcm.js'))).toBe(true);
    expect(urls.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
  });

  it('`wcm --version` does not even load the CLI', async () => {
    const { urls, stdout } = await loadedBy(['--version']);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(urls.filter((u) => u.includes('/dist/'))).toEqual([]);
  });

  it('the probe does see heavy modules when a command needs them', async () => {
    const { urls } = await loadedBy(['openapi']);
    expect(urls.some((u) => /node_modules\/zod\//.test(u))).toBe(true);
  });
});
