// Types for generate-threads.mjs, so the tests that import it are type-checked (tsconfig.test.json).

export const DEMO_WS1: string;

export interface GeneratedMessage {
  id: string;
  channel: 'web_chat' | 'email' | 'whatsapp' | 'form';
  direction: 'inbound' | 'outbound';
  body: string;
  created_at: string;
}

export interface GeneratedThread {
  id: string;
  workspace_id: string;
  subject: string | null;
  status: 'open' | 'closed';
  unread: boolean;
  starred: boolean;
  contact: { id: string; name: string | null; email: string | null; phone: string | null };
  messages: GeneratedMessage[];
}

export function generateThreads(o: {
  count: number;
  workspaceId?: string;
  seed?: number;
  start?: string;
  starredShare?: number;
}): { version: 1; threads: GeneratedThread[] };
