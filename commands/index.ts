import type { CommandDef } from '../src/cli/command.js';
import bookingsLs from './bookings/ls.js';
import listsCreate from './lists/create.js';
import listsLs from './lists/ls.js';
import listsTemplates from './lists/templates.js';
import localExport from './local/export.js';
import localImport from './local/import.js';
import openapi from './openapi.js';
import serve from './serve.js';
import threadsLs from './threads/ls.js';
import threadsShow from './threads/show.js';
import voiceLs from './voice/ls.js';

/**
 * Every command, in help order. Definitions are light: each loads what it needs inside `run`, so
 * `wcm --help` loads none of the server, the store, stripe or the prompts.
 */
export const commands: CommandDef[] = [
  serve,
  listsCreate,
  listsLs,
  listsTemplates,
  threadsLs,
  threadsShow,
  bookingsLs,
  voiceLs,
  localImport,
  localExport,
  openapi,
] as CommandDef[];
