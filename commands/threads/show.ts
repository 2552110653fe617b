import { defineCommand } from '../../src/cli/command.js';
import { printJson, relativeTime, style, terminalSafe, type Style } from '../../src/cli/output.js';
import type { IO } from '../../src/cli/io.js';
import { contactLabel } from '../../src/cli/records.js';
import type { Thread } from '../../src/contract/types.js';

/** Word-wraps a paragraph to `width`, keeping the body's own line breaks. */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    for (const word of para.split(/ +/)) {
      if (line && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out;
}

function printConversation(io: IO, t: Thread, s: Style, now: number): void {
  const w = (line = '') => io.stdout.write(`${line}\n`);
  const c = t.contact;
  const reach = [c.name ? c.email : null, c.phone].filter(Boolean).join(' · ');
  w(`${s.bold(contactLabel(c))}${reach ? s.dim(`  ${reach}`) : ''}`);
  const marks = [
    t.status === 'open' ? s.green('open') : s.dim('closed'),
    t.unread ? s.cyan('● unread') : null,
    t.starred ? s.yellow('★ starred') : null,
    `${t.message_count} message${t.message_count === 1 ? '' : 's'}`,
    t.channels.join(', ') || null,
  ].filter(Boolean);
  w(`${t.subject ?? s.dim('(no subject)')}`);
  w(s.dim(marks.join(' · ')));
  const width = Math.max(40, Math.min(io.columns, 100) - 4);
  for (const m of t.messages) {
    w();
    const arrow = m.direction === 'inbound' ? s.cyan('← inbound') : s.green('→ outbound');
    w(`${arrow}  ${m.channel}  ${s.dim(`${relativeTime(m.created_at, now)} · ${m.created_at}`)}`);
    for (const line of wrap(m.body, width)) w(`  ${line}`);
  }
}

/** Piped: the header as `key<TAB>value`, then each message as a `time<TAB>direction<TAB>channel` line and its body. */
function printPlain(io: IO, t: Thread): void {
  const w = (line = '') => io.stdout.write(`${line}\n`);
  const fields: Array<[string, string]> = [
    ['thread', t.id],
    ['contact', t.contact.name ?? ''],
    ['email', t.contact.email ?? ''],
    ['phone', t.contact.phone ?? ''],
    ['subject', t.subject ?? ''],
    ['status', t.status],
    ['unread', String(t.unread)],
    ['starred', String(t.starred)],
    ['channels', t.channels.join(',')],
    ['messages', String(t.message_count)],
  ];
  for (const [k, v] of fields) w(`${k}\t${v}`);
  for (const m of t.messages) {
    w();
    w(`${m.created_at}\t${m.direction}\t${m.channel}`);
    w(m.body);
  }
}

export default defineCommand({
  path: ['threads', 'show'],
  output: 'getThread',
  summary: 'Show one thread: the contact, then the conversation, oldest message first',
  args: [{ name: 'THREAD', description: 'thread id (from `wcm threads ls`)', required: true, pick: 'thread' }],
  options: [
    {
      flags: '--web',
      description: "open the thread's dashboard page in your browser instead (piped: print its address)",
    },
  ],
  examples: [
    'wcm threads show f7370231-e577-49db-81db-7fa0ec8f8fc9',
    'wcm threads show f7370231-e577-49db-81db-7fa0ec8f8fc9 --jq ".messages[].body"',
    'wcm threads show f7370231-e577-49db-81db-7fa0ec8f8fc9 --web',
  ],
  async run(opts, f) {
    const [thread] = opts.args;
    const workspace = await f.workspace();
    if (opts.web) {
      const { dashboardBase, openInBrowser } = await import('../../src/cli/browser.js');
      const { baseUrl } = await f.target();
      await openInBrowser(
        `${dashboardBase(baseUrl)}/workspaces/${workspace}/threads/${thread.toLowerCase()}`,
        baseUrl,
        f.io,
        f.env,
      );
      return 0;
    }
    const client = await f.client();
    const res = await client.call('getThread', { params: { workspace, thread } });
    const t = res.body.data;
    if (f.globals.json) printJson(f.io.stdout, t);
    else if (f.io.isStdoutTTY) printConversation(f.io, terminalSafe(t), await style(f.io), Date.now());
    else printPlain(f.io, terminalSafe(t));
    return 0;
  },
});
