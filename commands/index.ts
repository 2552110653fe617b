import type { CommandDef } from '../src/cli/command.js';
import agentsOpened from './agents/opened.js';
import commercePay from './commerce/pay.js';
import listsCreate from './lists/create.js';
import listsLs from './lists/ls.js';
import listsTemplates from './lists/templates.js';
import localEvents from './local/events.js';
import localExport from './local/export.js';
import localImport from './local/import.js';
import localOrders from './local/orders.js';
import openapi from './openapi.js';
import paymentsSimulate from './payments/simulate.js';
import serve from './serve.js';

/**
 * Every command, in help order. Definitions are light: each loads what it needs inside `run`, so
 * `wcm --help` loads none of the server, the store, stripe or the prompts.
 */
export const commands: CommandDef[] = [
  serve,
  listsCreate,
  listsLs,
  listsTemplates,
  localImport,
  localExport,
  localOrders,
  localEvents,
  commercePay,
  agentsOpened,
  paymentsSimulate,
  openapi,
] as CommandDef[];
