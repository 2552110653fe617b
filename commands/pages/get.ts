import { defineCommand } from '../../src/cli/command.js';
import type { Factory } from '../../src/cli/factory.js';
import { printFields, printJson } from '../../src/cli/output.js';
import type { Page } from '../../src/contract/types.js';
export type { SuggestedReply, Page } from '../../src/contract/types.js';

/** One page as key/value lines. */
export async function printPage(f: Factory, p: Page): Promise<void> {
  const text = (v: string | null | undefined) => v ?? '—';
  await printFields(f.io, [
    ['id', p.id],
    ['name', p.name],
    ['slug', p.slug],
    ['published', String(p.published)],
    ['template', p.template],
    ['display_name', text(p.display_name)],
    ['bio', text(p.bio)],
    ['seo_title', text(p.seo_title)],
    ['seo_description', text(p.seo_description)],
    ['aeo_summary', text(p.aeo_summary)],
    ['agent_instructions', text(p.agent_instructions)],
    ['schema_type', p.schema_type],
    ['chat.greeting', text(p.chat.greeting)],
    ['chat.suggested_replies', (p.chat.suggested_replies ?? []).map((r) => r.label).join(', ') || '—'],
    ['robots_index', String(p.robots_index)],
    ['llms_enabled', String(p.llms_enabled)],
    ['updated_at', text(p.updated_at)],
  ]);
}

export default defineCommand({
  path: ['pages', 'get'],
  summary: 'Show a page',
  args: [{ name: 'PAGE', description: 'page id', required: true, pick: 'page' }],
  examples: ['wcm pages get 7118…', 'wcm pages get 7118… --json | jq .chat'],
  async run(opts, f) {
    const workspace = await f.workspace();
    const client = await f.client();
    const res = await client.call('getPage', { params: { workspace, page: opts.args[0] } });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else await printPage(f, res.body.data);
    return 0;
  },
});
