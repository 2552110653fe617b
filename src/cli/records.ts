/** How one record of each kind prints as key/value lines: shared by the commands that get and update it. */
import type { Factory } from './factory.js';
import { printFields } from './output.js';
import type { Form, FormField, Page, ThreadSummary } from '../contract/types.js';

/** `email*` for a required field, `(3 options)` when it has choices. */
const fieldLabel = (x: FormField) =>
  `${x.id}${x.required ? '*' : ''}${x.options ? ` (${x.options.length} options)` : ''}`;

/** One form as key/value lines (object members as compact JSON). */
export async function printForm(f: Factory, form: Form): Promise<void> {
  await printFields(f.io, [
    ['id', form.id],
    ['name', form.name],
    ['fields', form.fields.map(fieldLabel).join(', ') || null],
    ['settings', JSON.stringify(form.settings)],
    ['design', JSON.stringify(form.design)],
    ['integrations', JSON.stringify(form.integrations)],
    ['embed', JSON.stringify(form.embed)],
    ['updated_at', form.updated_at],
  ]);
}

/** One page as key/value lines. */
export async function printPage(f: Factory, p: Page): Promise<void> {
  const text = (v: string | null | undefined) => v;
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
    ['chat.suggested_replies', (p.chat.suggested_replies ?? []).map((r) => r.label).join(', ') || null],
    ['robots_index', String(p.robots_index)],
    ['llms_enabled', String(p.llms_enabled)],
    ['updated_at', text(p.updated_at)],
  ]);
}

/** Who a thread is with, as a person reads it: the name, else the email, else the phone. */
export const contactLabel = (c: ThreadSummary['contact']) => c.name ?? c.email ?? c.phone ?? '(unknown contact)';
