import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { workspaceList } from '../../src/cli/list.js';
import { formatMoney } from '../../src/cli/output.js';

export default defineCommand<ListFlags>({
  path: ['offers', 'ls'],
  output: 'listOffers',
  summary: "List the workspace's offers, by title, inactive ones included (ids go to `wcm commerce pay OFFER`)",
  description:
    'Piped output is tab-separated: id, kind, title, currency, unit amount in minor units (empty for a\n' +
    'contribution offer, which the buyer prices), active (true/false).',
  list: true,
  examples: ['wcm offers ls', 'wcm offers ls --all --json | jq -r ".[] | select(.active) | .id"'],
  run: workspaceList(
    'listOffers',
    [
      { header: 'ID', value: (r) => r.id },
      { header: 'KIND', value: (r) => r.kind },
      { header: 'TITLE', value: (r) => r.title, maxWidth: 40 },
      { header: 'CURRENCY', value: (r) => r.currency },
      {
        header: 'PRICE',
        value: (r) => (r.unit_amount_minor === null ? '' : String(r.unit_amount_minor)),
        pretty: (r, s) =>
          r.unit_amount_minor === null ? s.dim('buyer sets') : formatMoney(r.unit_amount_minor, r.currency),
      },
      {
        header: 'ACTIVE',
        value: (r) => String(r.active),
        pretty: (r, s) => (r.active ? s.green('active') : s.dim('inactive')),
      },
    ],
    'offers',
  ),
});
