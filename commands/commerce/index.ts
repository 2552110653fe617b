import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import commercePay from './pay.js';

/** `wcm commerce`: its help line and its commands, in help order. */
export const commerceGroup = defineGroup({
  name: 'commerce',
  summary: 'Public card payments: create an order and payment intent (no token)',
  commands: [commercePay] as CommandDef[],
});
