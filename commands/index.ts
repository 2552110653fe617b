import type { CommandDef } from '../src/cli/command.js';
import api from './api.js';
import authLogin from './auth/login.js';
import authLogout from './auth/logout.js';
import authStatus from './auth/status.js';
import authToken from './auth/token.js';
import listsCreate from './lists/create.js';
import listsLs from './lists/ls.js';
import listsTemplates from './lists/templates.js';
import localExport from './local/export.js';
import localImport from './local/import.js';
import openapi from './openapi.js';
import profileLs from './profile/ls.js';
import profileUse from './profile/use.js';
import serve from './serve.js';

/**
 * Every command, in help order. Definitions are light: each loads what it needs inside `run`, so
 * `wcm --help` loads none of the server, the store, stripe or the prompts.
 */
export const commands: CommandDef[] = [
  serve,
  authLogin,
  authStatus,
  authToken,
  authLogout,
  profileLs,
  profileUse,
  listsCreate,
  listsLs,
  listsTemplates,
  localImport,
  localExport,
  openapi,
  api,
] as CommandDef[];
