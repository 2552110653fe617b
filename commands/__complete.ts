import type { ListOperationId } from '../src/contract/types.js';
import { defineCommand } from '../src/cli/command.js';
import { ID_PICKERS, type PickerName } from '../src/cli/pickers.js';

/**
 * `wcm __complete PICKER`: the ids a completion script offers (one per line), from the target's
 * list operation. Silent and quick: any failure (offline, no token, no such list) prints nothing.
 */
export default defineCommand({
  path: ['__complete'],
  summary: '(for shell completion) print candidate ids of a kind, one per line',
  hidden: true,
  args: [{ name: 'PICKER', description: Object.keys(ID_PICKERS).join(', '), required: true }],
  async run(opts, f) {
    const name = opts.args[0] as PickerName;
    const picker = (ID_PICKERS as unknown as Record<string, { operationId: ListOperationId; after?: object; itemsOf?: unknown; value(x: unknown): string }>)[name];
    if (!picker || picker.after || picker.itemsOf) return 0;
    try {
      const t = await f.target();
      const client = await f.client();
      const res = await Promise.race([
        client.call(picker.operationId, { params: { workspace: t.workspace }, query: { limit: 100 } }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 1500).unref()),
      ]);
      for (const item of res.body.data) f.io.stdout.write(`${picker.value(item)}\n`);
    } catch {
      /* completion stays silent */
    }
    return 0;
  },
});
