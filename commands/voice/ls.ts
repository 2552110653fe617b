import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { runList } from '../../src/cli/list.js';
import { relativeTime, type Column } from '../../src/cli/output.js';
import type { VoiceInteraction } from '../../src/contract/types.js';
import { VOICE_KINDS } from '../../src/contract/enums.js';

interface LsOptions extends ListFlags {
  kind?: string;
}

/** `3:04` for people; piped output keeps the seconds. */
export function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

const ttyColumns = (now: number): Column<VoiceInteraction>[] => [
  {
    header: 'WHEN',
    value: (v) => relativeTime(v.started_at, now),
    pretty: (v, s) => s.dim(relativeTime(v.started_at, now)),
  },
  { header: 'KIND', value: (v) => (v.kind === 'call' ? 'call' : 'voice message') },
  {
    header: 'STATUS',
    value: (v) => v.status,
    pretty: (v, s) =>
      v.status === 'answered' ? s.green(v.status) : v.status === 'missed' ? s.red(v.status) : s.yellow(v.status),
  },
  { header: 'FROM', value: (v) => v.from, pretty: (v, s) => s.bold(v.from) },
  { header: 'TO', value: (v) => v.to },
  { header: 'LENGTH', value: (v) => duration(v.duration_seconds) },
  { header: 'TRANSCRIPT', value: (v) => v.transcript ?? '—', maxWidth: 48 },
  { header: 'ID', value: (v) => v.id, pretty: (v, s) => s.dim(v.id) },
];

const plainColumns: Column<VoiceInteraction>[] = [
  { header: 'ID', value: (v) => v.id },
  { header: 'STARTED_AT', value: (v) => v.started_at },
  { header: 'KIND', value: (v) => v.kind },
  { header: 'STATUS', value: (v) => v.status },
  { header: 'FROM', value: (v) => v.from },
  { header: 'TO', value: (v) => v.to },
  { header: 'DURATION_SECONDS', value: (v) => String(v.duration_seconds) },
  { header: 'TRANSCRIPT', value: (v) => v.transcript ?? '' },
];

export default defineCommand<LsOptions>({
  path: ['voice', 'ls'],
  output: 'listVoiceInteractions',
  summary: 'List recent inbound calls and web voice messages, newest first',
  description:
    'Piped output is tab-separated: id, started_at, kind, status, from, to, duration in seconds, transcript.',
  list: true,
  examples: ['wcm voice ls', 'wcm voice ls --kind voice_message', 'wcm voice ls --all --json'],
  options: [{ flags: '--kind <kind>', description: 'only calls, or only web voice messages', choices: VOICE_KINDS }],
  async run(opts, f) {
    const workspace = await f.workspace();
    const columns = f.io.isStdoutTTY ? ttyColumns(Date.now()) : plainColumns;
    return runList(
      f,
      opts,
      'listVoiceInteractions',
      { params: { workspace }, query: { kind: opts.kind } },
      columns,
      'voice interactions',
    );
  },
});
