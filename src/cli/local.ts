import path from 'node:path';

/** The data file a `wcm local …` command works on (same default as `wcm serve`). */
export function dataFileOf(f: { cwd: string }, data: string | undefined): string {
  return path.resolve(f.cwd, data ?? '.wcm/store.json');
}

export const dataOption = {
  flags: '--data <file>',
  description: 'data file (default .wcm/store.json, as for wcm serve)',
};
