import type { CommandDef } from '../../src/cli/command.js';
import paymentsSimulate from './simulate.js';

/** The `wcm payments` commands, in help order: a new verb is its file beside this one and one line here. */
export const paymentsCommands = [paymentsSimulate] as CommandDef[];
