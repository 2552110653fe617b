// Types for what the tests import from datasets.mjs (tsconfig.test.json type-checks test/).
import type { GeneratedThread } from '../support/generate-threads.mjs';

/** The people, workspaces and the one token every data set shares. */
export function accounts(): {
  users: Array<{ id: string; name: string; email: string }>;
  workspaces: Array<{
    id: string;
    name: string;
    stripe_account_id: null;
    members: Array<{ user_id: string; role: string }>;
  }>;
  tokens: Array<{ token: string; user_id: string; name: string; abilities: string[]; expires_at: null }>;
  token: string;
  workspaceId: string;
};

export function generateThreads(n: number): GeneratedThread[];

export function generateListings(n: number): Array<{
  id: string;
  workspace_id: string;
  title: string;
  template_slug: string;
  items: Array<{ title: string; description?: string }>;
  button_id: null;
  created_at: string;
}>;

/** A thread's summary as listThreads shows it. */
export function threadSummary(t: GeneratedThread): {
  id: string;
  contact: GeneratedThread['contact'];
  channels: string[];
  subject: string | null;
  status: string;
  unread: boolean;
  starred: boolean;
  last_message_at: string | null;
  last_message_preview: string | null;
  message_count: number;
};

export function expectedThreadPage(
  threads: GeneratedThread[],
  o: { workspaceId: string; view: 'inbox' | 'unread' | 'starred' | 'closed'; channel?: string; limit: number },
): GeneratedThread[];
