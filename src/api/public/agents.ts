import { randomUUID } from 'node:crypto';
import { operations } from '../../contract/operations.js';
import type { AgentRecord, AnalyticsEventRecord } from '../../store/records.js';
import { implement, txTimestamp } from '../../server/context.js';
import { cachedJson, pageRecords } from '../../server/paging.js';
import { notFound } from '../../server/problems.js';

const summarize = cachedJson((r: AgentRecord) => ({ id: r.id, name: r.name }));

export const agentHandlers = [
  implement(operations.listAgents, ({ params, query, db }) =>
    pageRecords(db, 'agentsByWorkspace', params.workspace, {
      scope: `agents:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: summarize,
    }),
  ),
  // Privacy by construction: the event holds the agent, the optional button and app, and a time.
  // Nothing from the request (address, user agent, cookies, referrer) is read, stored or echoed.
  implement(operations.recordAgentChatOpened, ({ params, body, db, idempotency }) =>
    // One event per key, even across a crash: the event and its idempotency record land together.
    db.write(async (tx) => {
      const agent = await tx.get('agents', params.agent);
      if (!agent) throw notFound('agent_not_found', params.agent);
      const event: AnalyticsEventRecord = {
        id: randomUUID(),
        type: 'agent.chat_opened',
        workspace_id: agent.workspace_id,
        agent_id: agent.id,
        button_id: body.button ?? null,
        app_id: body.app ?? null,
        occurred_at: await txTimestamp(tx),
      };
      const { workspace_id: _w, ...out } = event;
      await tx.create('analytics_events', event);
      await idempotency?.record(tx, operations.recordAgentChatOpened.status, out);
      return out;
    }),
  ),
];
