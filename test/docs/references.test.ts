// Every file the project's text names is in the repository: the README, docs/, and the comments, help
// texts and messages of src/, commands/, test/, bin/ and .ci/ may cite a markdown file only if it is
// tracked here (or about to be: untracked, not ignored), and a markdown link must lead to a file or
// folder of the repository, and to a heading of it when it names one. The project stands alone: a
// reader of a clone has nothing outside it to follow.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCANNED = ['README.md', 'docs', 'src', 'commands', 'test', 'bin', '.ci'];
const TEXT = /\.(md|ts|mts|js|mjs|cjs|json|sh|txt|ya?ml)$|^[^.]+$/;

/** The repository's files: tracked, or new and not ignored. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return out.split('\0').filter((f) => f && existsSync(path.join(ROOT, f)));
}

const files = repoFiles();
const fileSet = new Set(files);
const dirSet = new Set(
  files.flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);
const SELF = 'test/docs/references.test.ts'; // its samples name missing files on purpose
const scanned = files.filter(
  (f) =>
    f !== SELF &&
    SCANNED.some((s) => f === s || f.startsWith(`${s}/`)) &&
    TEXT.test(path.basename(f)) &&
    statSync(path.join(ROOT, f)).size < 4_000_000,
);

/** A repository-relative path, or undefined when it leaves the repository. */
function inRepo(from: string, target: string): string | undefined {
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(from), target));
  return resolved.startsWith('../') || resolved === '..' ? undefined : resolved;
}

const exists = (p: string | undefined): boolean =>
  p !== undefined && (fileSet.has(p) || dirSet.has(p.replace(/\/$/, '')) || p === '.');

/** GitHub's anchors for a markdown file's headings. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Names of markdown files cited in a text: `docs/cli.md`, `../README.md`, `SOMETHING.md`. */
const MD_NAME = /(?<![\w.\-/@:])((?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.md)(?:#([\w-]+))?(?![\w/-])/g;
/** Markdown links and images: [text](target "title"). */
const MD_LINK = /!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

function problems(): string[] {
  const found: string[] = [];
  for (const file of scanned) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    if (/shared\/spec\b|\/work\/shared\b/.test(text)) {
      const i = text.search(/shared\/spec\b|\/work\/shared\b/);
      found.push(`${file}:${lineOf(i)}: points outside the repository (${text.slice(i, i + 30).split('\n')[0]})`);
    }
    for (const m of text.matchAll(MD_NAME)) {
      const name = m[1]!;
      // A bare name is looked for beside the file and at the root; a path, from the file and from the root.
      const candidates = [inRepo(file, name), inRepo('x', name)];
      const hit = candidates.find(exists);
      if (!hit) found.push(`${file}:${lineOf(m.index)}: ${name} is not in the repository`);
      else if (m[2] && !anchors(hit).has(m[2].toLowerCase()))
        found.push(`${file}:${lineOf(m.index)}: ${name}#${m[2]}: no such heading in ${hit}`);
    }
    if (!file.endsWith('.md')) continue;
    for (const m of text.matchAll(MD_LINK)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
      const linked = rawPath === '' ? file : inRepo(file, decodeURIComponent(rawPath));
      if (!exists(linked)) {
        found.push(`${file}:${lineOf(m.index)}: link to ${target}, not in the repository`);
        continue;
      }
      if (anchor && linked!.endsWith('.md') && !anchors(linked!).has(anchor.toLowerCase())) {
        found.push(`${file}:${lineOf(m.index)}: link to ${target}, no such heading in ${linked}`);
      }
    }
  }
  return found;
}

describe('references to files', () => {
  it('scans the README, docs/ and the sources', () => {
    expect(scanned).toContain('README.md');
    expect(scanned.some((f) => f.startsWith('docs/'))).toBe(true);
    expect(scanned.some((f) => f.startsWith('src/'))).toBe(true);
    expect(scanned.some((f) => f.startsWith('commands/'))).toBe(true);
    expect(scanned.some((f) => f.startsWith('test/'))).toBe(true);
  });

  it('finds a missing file, a broken link and a missing heading (the checks themselves)', () => {
    const sample = 'see NOWHERE.md, [a](docs/none.md), [b](docs/cli.md#no-such-heading) and [c](docs/cli.md)';
    expect([...sample.matchAll(MD_NAME)].map((m) => m[1])).toEqual([
      'NOWHERE.md',
      'docs/none.md',
      'docs/cli.md',
      'docs/cli.md',
    ]);
    expect([...'(docs/security.md#oauth)'.matchAll(MD_NAME)].map((m) => [m[1], m[2]])).toEqual([
      ['docs/security.md', 'oauth'],
    ]);
    expect([...sample.matchAll(MD_LINK)].map((m) => m[1])).toEqual([
      'docs/none.md',
      'docs/cli.md#no-such-heading',
      'docs/cli.md',
    ]);
    expect(exists(inRepo('x', 'docs/none.md'))).toBe(false);
    expect(exists(inRepo('docs/server.md', 'cli.md'))).toBe(true);
    expect(anchors('docs/cli.md').has('no-such-heading')).toBe(false);
    expect(anchors('docs/cli.md').has('output-errors-and-exit-codes')).toBe(true);
  });

  it('every markdown file named, and every markdown link, points at a file (and heading) of the repository', () => {
    expect(problems()).toEqual([]);
  });
});
