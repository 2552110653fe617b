import { UsageError } from '../../src/cli/errors.js';
import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { runList } from '../../src/cli/list.js';
import { relativeTime, type Column } from '../../src/cli/output.js';
import type { ThreadSummary } from '../../src/contract/types.js';
import { CHANNELS, THREAD_VIEWS } from '../../src/contract/enums.js';
import { contactLabel } from '../../src/cli/records.js';

interface LsOptions extends ListFlags {
  view?: string;
  channel?: string;
  search?: string;
}

/** A terminal: marks, who, where, what, when; the id last, for `wcm threads show`. */
const ttyColumns = (now: number): Column<ThreadSummary>[] => [
  {
    header: '',
    value: (t) => `${t.unread ? '●' : ' '}${t.starred ? '★' : ' '}`,
    pretty: (t, s) => `${t.unread ? s.cyan('●') : ' '}${t.starred ? s.yellow('★') : ' '}`,
  },
  {
    header: 'CONTACT',
    value: (t) => contactLabel(t.contact),
    maxWidth: 28,
    pretty: (t, s) => cut(contactLabel(t.contact), 28, t.unread ? s.bold : undefined),
  },
  { header: 'CHANNELS', value: (t) => t.channels.join(', '), pretty: (t, s) => s.cyan(t.channels.join(', ')) },
  {
    header: 'SUBJECT',
    value: (t) => t.subject ?? '',
    pretty: (t, s) =>
      (t.subject ? cut(t.subject, 44, t.unread ? s.bold : undefined) : s.dim('(no subject)')) +
      (t.status === 'closed' ? s.dim(' · closed') : ''),
  },
  {
    header: 'LAST MESSAGE',
    value: (t) => relativeTime(t.last_message_at, now),
    pretty: (t, s) => s.dim(relativeTime(t.last_message_at, now)),
  },
  { header: 'ID', value: (t) => t.id, pretty: (t, s) => s.dim(t.id) },
];

/** Piped: exact values, one thread per line, for `cut`, `sort` and `grep`. */
const plainColumns: Column<ThreadSummary>[] = [
  { header: 'ID', value: (t) => t.id },
  { header: 'LAST_MESSAGE_AT', value: (t) => t.last_message_at ?? '' },
  { header: 'STATUS', value: (t) => t.status },
  { header: 'UNREAD', value: (t) => String(t.unread) },
  { header: 'STARRED', value: (t) => String(t.starred) },
  { header: 'CHANNELS', value: (t) => t.channels.join(',') },
  { header: 'CONTACT', value: (t) => t.contact.name ?? '' },
  { header: 'EMAIL', value: (t) => t.contact.email ?? '' },
  { header: 'PHONE', value: (t) => t.contact.phone ?? '' },
  { header: 'SUBJECT', value: (t) => t.subject ?? '' },
  { header: 'MESSAGES', value: (t) => String(t.message_count) },
];

function cut(text: string, max: number, paint?: (s: string) => string): string {
  const t = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return paint ? paint(t) : t;
}

export default defineCommand<LsOptions>({
  path: ['threads', 'ls'],
  output: 'listThreads',
  summary: 'List conversation threads, newest first (● unread, ★ starred)',
  description:
    'Views: inbox (open threads, the default), unread (open and unread), starred, closed.\n' +
    'Piped output is tab-separated: id, last_message_at, status, unread, starred, channels, contact name, email, phone, subject, message count.',
  list: true,
  examples: [
    'wcm threads ls',
    'wcm threads ls --view unread --channel whatsapp',
    'wcm threads ls --search "order 4821"',
    'wcm threads ls --all --json | jq length',
  ],
  options: [
    { flags: '--view <view>', description: 'which threads (default inbox)', choices: THREAD_VIEWS },
    { flags: '--channel <channel>', description: 'only threads with a message on this channel', choices: CHANNELS },
    {
      flags: '--search <text>',
      description: 'contact name, email, subject or last message (case-insensitive, max 200)',
    },
  ],
  async run(opts, f) {
    if (opts.search !== undefined && opts.search.length > 200) {
      throw new UsageError(
        `\`--search\` is at most 200 characters; received ${opts.search.length}.`,
        'Search for a shorter, distinctive part: a name, an email or a few words.',
      );
    }
    const workspace = await f.workspace();
    const columns = f.io.isStdoutTTY ? ttyColumns(Date.now()) : plainColumns;
    return runList(
      f,
      opts,
      'listThreads',
      { params: { workspace }, query: { view: opts.view, channel: opts.channel, q: opts.search } },
      columns,
      'threads',
    );
  },
});
