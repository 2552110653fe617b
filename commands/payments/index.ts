import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import paymentsSimulate from './simulate.js';

/**
 * `wcm payments`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const paymentsGroup = defineGroup({
  name: 'payments',
  summary: 'Payment notifications: sign and send one, like the processor would',
  commands: [paymentsSimulate] as CommandDef[],
});
