import type { WorkspaceRecord } from '../../store/records.js';
import type { AppRequest } from '../app.js';
import type { SignedIn } from '../web/signin.js';
import type { DataEnv } from './data.js';

/** A signed-in request for one of a workspace's pages, after the membership check. */
export interface WorkspaceRequest extends DataEnv {
  req: AppRequest;
  signed: SignedIn;
  workspace: WorkspaceRecord;
  role: string;
  /** The address's query (filters, cursor). */
  query: URLSearchParams;
  /** The server's clock, read once per request. */
  now: Date;
}

/** A query parameter, or undefined when absent or empty (a form's empty field). */
export const param = (query: URLSearchParams, name: string): string | undefined => query.get(name) || undefined;
