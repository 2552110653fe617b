import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import commercePay from './pay.js';

/**
 * `wcm commerce`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const commerceGroup = defineGroup({
  name: 'commerce',
  summary: 'Public card payments: create an order and payment intent (no token)',
  commands: [commercePay] as CommandDef[],
});
