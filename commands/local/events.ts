import { defineCommand } from '../../src/cli/command.js';
import { allOf, dataOption, openEngine } from '../../src/cli/local.js';
import { printJson, printRows } from '../../src/cli/output.js';

export default defineCommand<{ data?: string }>({
  path: ['local', 'events'],
  output: ['id', 'type', 'workspace_id', 'agent_id', 'button_id', 'app_id', 'occurred_at'],
  summary: 'Analytics events a local server recorded (agent chat opens), newest first',
  description:
    'Read-only: works while `wcm serve` runs on the file. Events hold no visitor data.\n' +
    'Piped output is tab-separated: id, type, agent id, button id, app id (empty if none), occurred_at.',
  examples: ['wcm local events', 'wcm local events --json'],
  options: [dataOption],
  async run(opts, f) {
    const db = await openEngine(f, { data: opts.data, readOnly: true });
    const events = await allOf(db, 'analytics_events', 'eventsByOccurred').finally(() => db.close());
    if (f.globals.json) return printJson(f.io.stdout, events);
    if (!events.length && f.io.isStdoutTTY) f.io.stderr.write('no events yet: try `wcm agents opened AGENT`\n');
    await printRows(f.io, events, [
      { header: 'ID', value: (e) => e.id },
      { header: 'TYPE', value: (e) => e.type },
      { header: 'AGENT', value: (e) => e.agent_id },
      { header: 'BUTTON', value: (e) => e.button_id ?? null },
      { header: 'APP', value: (e) => e.app_id ?? null },
      { header: 'OCCURRED', value: (e) => e.occurred_at },
    ]);
  },
});
