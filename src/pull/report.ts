/* What `wcm pull` says: progress on a terminal, the summary table, how far a stopped pull got. */
import { createReadStream, rmSync } from 'node:fs';
import type { IO, Writer } from '../cli/io.js';
import { errStyle } from '../cli/output.js';
import type { PullStopped, PullSummary } from './run.js';
import { removePartial } from './writer.js';

const plural = (c: string) => c.replace(/_/g, ' ');

/** One line on stderr, rewritten at most 10 times a second: the collection, its count, the rate. */
export async function progress(io: IO) {
  const s = await errStyle(io);
  let last = 0;
  let current = '';
  let startedAt = Date.now();
  return {
    update(collection: string, count: number) {
      if (collection !== current) {
        current = collection;
        startedAt = Date.now();
      }
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      const secs = (now - startedAt) / 1000;
      const rate = secs > 0.2 ? ` ${s.dim(`${Math.round(count / secs).toLocaleString('en-US')}/s`)}` : '';
      io.stderr.write(`\r\x1b[2Kpulling ${plural(collection)}: ${count.toLocaleString('en-US')}${rate}`);
    },
    clear() {
      io.stderr.write('\r\x1b[2K');
    },
  };
}

export function printSummary(
  out: Writer,
  summary: PullSummary,
  o: { json: boolean; seconds: number; file: string | null },
): void {
  const next = o.file ? `wcm serve --seed ${o.file} --data ${o.file.replace(/\.json$/, '')}.store.json` : null;
  if (o.json) {
    out.write(
      JSON.stringify(
        {
          ok: true,
          output: o.file,
          workspace: summary.workspace,
          collections: summary.collections,
          notes: summary.notes,
          made: { user: summary.user, token: summary.token },
          next,
          requests: summary.requests,
          seconds: Math.round(o.seconds * 10) / 10,
          resumed: summary.resumed,
        },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  const w = Math.max(...summary.collections.map((c) => c.name.length));
  const n = Math.max(...summary.collections.map((c) => String(c.count).length), 5);
  out.write(
    `Pulled workspace ${summary.workspace.name} (${summary.workspace.id})${o.file ? ` into ${o.file}` : ''}` +
      ` in ${o.seconds.toFixed(1)} s, ${summary.requests} requests${summary.resumed ? ' (resumed)' : ''}.\n\n`,
  );
  out.write(`${'COLLECTION'.padEnd(w)}  ${'COUNT'.padStart(n)}  STATUS\n`);
  for (const c of summary.collections)
    out.write(`${c.name.padEnd(w)}  ${String(c.count).padStart(n)}  ${c.status}${c.reason ? `: ${c.reason}` : ''}\n`);
  if (summary.notes.length) {
    out.write('\nNotes:\n');
    for (const note of summary.notes) out.write(`- ${note}\n`);
  }
  out.write(`\nMade (not copied): owner ${summary.user.id} and an all-abilities token for it:\n  ${summary.token}\n`);
  if (next)
    out.write(
      `\nServe it (on port 4010; add \`--port N\` if that one is taken). \`wcm serve\` saves that token in profile \`local\`, or in \`local-PORT\` when \`local\` belongs to a server still running, and says which:\n  ${next}\n` +
        `or from another shell: WCM_TOKEN=${summary.token} WCM_WORKSPACE=${summary.workspace.id} wcm threads ls --base-url http://127.0.0.1:4010/v1\n`,
    );
}

/** How far a stopped pull got, and how to go on (or that nothing was kept). */
export function printStopped(io: IO, err: PullStopped, o: { toStdout: boolean; json: boolean }): void {
  const s = err.state;
  const done = Object.entries(s.counts)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${n} ${plural(c)}`)
    .join(', ');
  const kept = Object.values(s.counts).some((n) => n > 0);
  let line = `Pull stopped: ${done ? `copied ${done} so far` : 'nothing copied yet'}.`;
  if (o.toStdout) {
    removePartial(err.partial);
    line += ' Nothing was written to stdout.';
  } else if (kept)
    line += ` The partial copy is ${err.partial} (not a fixture yet); run the same command with --resume to continue.`;
  else line += ' Nothing was written.';
  io.stderr.write(o.json ? JSON.stringify({ ok: false, stopped: line, counts: s.counts }) + '\n' : `${line}\n`);
}

/** A finished pull to stdout: the file copied out, then removed. */
export async function copyOut(file: string, io: IO): Promise<void> {
  const out = io.stdout as Writer & { once?: (e: string, f: () => void) => void };
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    if (!out.write(chunk as string) && out.once) await new Promise<void>((r) => out.once!('drain', r));
  }
  rmSync(file, { force: true });
}
