import { operations } from '../../contract/operations.js';
import type { VoiceInteractionRecord } from '../../store/records.js';
import { implement } from '../../server/context.js';
import { pageRecords } from '../../server/paging.js';

function voiceItem(v: VoiceInteractionRecord) {
  return {
    id: v.id,
    kind: v.kind,
    from: v.from,
    to: v.to,
    status: v.status,
    started_at: v.started_at,
    duration_seconds: v.duration_seconds,
    transcript: v.transcript,
  };
}

export const voiceHandlers = [
  implement(operations.listVoiceInteractions, ({ params, query, db }) => {
    const { kind } = query;
    return pageRecords(db, 'voiceByWorkspace', params.workspace, {
      scope: JSON.stringify(['voice', params.workspace, kind ?? null]),
      cursor: query.cursor,
      limit: query.limit,
      filter: kind ? (v) => v.kind === kind : undefined,
      map: voiceItem,
    });
  }),
];
