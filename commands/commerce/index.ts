import type { CommandDef } from '../../src/cli/command.js';
import commercePay from './pay.js';

/** The `wcm commerce` commands, in help order: a new verb is its file beside this one and one line here. */
export const commerceCommands = [commercePay] as CommandDef[];
