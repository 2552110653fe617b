// docs/architecture.md names files and folders of the repository, and its recipes are followed to the
// letter: every path it names must exist. A path is a `code` span that looks like one (it has a file
// extension or ends in `/`); one written relative to the folder its sentence is about (`trust/edge.ts`,
// `handlers/index.ts`) matches the end of a path; a bare file name (`chain.ts`) matches some file of
// that name; `<area>`, `<group>`, `<verb>` match any one name and `{a,b}` each of its names.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Folders that are not the repository's sources: installed, built or ignored output. */
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage']);
/** Paths the doc names that a checkout makes rather than holds (`npm run build` writes `dist/`). */
const BUILT = new Set(['dist/']);

/** Every file and folder (with a trailing `/`) under the repository, relative to its root. */
function entries(dir = root, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = rel + e.name;
    if (e.isDirectory()) out.push(`${p}/`, ...entries(path.join(dir, e.name), `${p}/`));
    else out.push(p);
  }
  return out;
}

const FILE = /^[\w.<>{},…/-]+$/;
const EXT = /\.(ts|js|mjs|cjs|json|md|sh|sql)$/;

/** The paths a markdown text names: code spans that look like paths, and relative link targets. */
export function namedPaths(doc: string): string[] {
  const spans = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const links = [...doc.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
  const paths = [...spans, ...links].filter(
    (s) => FILE.test(s) && !s.startsWith('/') && (EXT.test(s) || s.endsWith('/')) && !/^\.?[\w-]+\.json$/.test(s),
  );
  return [...new Set(paths)];
}

/** The names a doc path matches among `all`, or none. */
export function missingPaths(doc: string, all: string[]): string[] {
  return namedPaths(doc).filter((p) => {
    if (BUILT.has(p)) return false;
    const alternatives = p.replace(
      /\{([^}]*)\}/,
      (_m, list: string) =>
        `(${list
          .split(',')
          .filter((x: string) => x !== '…')
          .join('|')})`,
    );
    const pattern = alternatives
      .replace(/[.]/g, '\\.')
      .replace(/<[\w-]+>/g, '[^/]+')
      .replace(/…/g, '[^/]+');
    const re = new RegExp(`(^|/)${pattern}$`);
    return !all.some((e) => re.test(e));
  });
}

describe('docs/architecture.md', () => {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const all = entries();

  it('names only paths that exist in the repository', () => {
    expect(namedPaths(doc).length).toBeGreaterThan(50);
    expect(missingPaths(doc, all)).toEqual([]);
  });

  it('the check sees a removed file, a wrong folder and a template that matches nothing', () => {
    const sample = 'See `src/server/fixture-parse.ts`, `trust/edges.ts`, `commands/<group>/<verb>.mjs` and `chain.ts`.';
    expect(missingPaths(sample, all)).toEqual([
      'src/server/fixture-parse.ts',
      'trust/edges.ts',
      'commands/<group>/<verb>.mjs',
    ]);
  });

  it('its links to headings point at headings of the page', () => {
    const anchors = new Set(
      [...doc.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .trim()
          .replace(/\s/g, '-'),
      ),
    );
    const links = [...doc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(links.filter((l) => !anchors.has(l))).toEqual([]);
  });
});
