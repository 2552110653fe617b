import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import paymentsSimulate from './simulate.js';

/** `wcm payments`: its help line and its commands, in help order. */
export const paymentsGroup = defineGroup({
  name: 'payments',
  summary: 'Payment notifications: sign and send one, like the processor would',
  commands: [paymentsSimulate] as CommandDef[],
});
