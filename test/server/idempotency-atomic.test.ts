import { afterEach, describe, expect, it } from 'vitest';
import { nodeFileLayer, type FileLayer } from '../../src/store/json/files.js';
import { demo } from '../support/server.js';
import { journalThrough } from '../support/store.js';
import { publicApp, type PublicApp } from './payments/harness.js';

/** The real disk layer, remembering every batch written to the journal. */
function recordingFiles(): { files: FileLayer; appends: string[] } {
  const appends: string[] = [];
  const files: FileLayer = {
    ...nodeFileLayer,
    openJournal: journalThrough(async (j, buf) => {
      await j.writeDurable(buf);
      appends.push(buf.toString('utf8'));
    }),
  };
  return { files, appends };
}

let h: PublicApp | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The journal line (one transaction) that wrote the record with this id. */
const lineWith = (appends: string[], id: string) =>
  appends.flatMap((a) => a.split('\n')).filter((l) => l.includes(`"${id}"`));

describe('a public POST and its idempotency record are one transaction', () => {
  it.each([
    [
      'createPaymentIntent',
      `/v1/public/commerce/offers/${demo.offerFixedUsd}/payment-intents`,
      (d: any) => d.order.id,
      'orders',
    ],
    [
      'recordAgentChatOpened',
      `/v1/public/agents/${demo.agent1}/analytics-events/opened`,
      (d: any) => d.id,
      'analytics_events',
    ],
  ])(
    '%s: the created record and the key land in the same journal line, so a crash cannot split them',
    async (_op, url, idOf, collection) => {
      const rec = recordingFiles();
      h = await publicApp({ files: rec.files });
      const res = await h.request({ url, key: 'atomic-key-0001', json: {} });
      expect(res.status).toBe(201);
      const lines = lineWith(rec.appends, idOf(res.json.data));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`["${collection}",`);
      expect(lines[0]).toContain('["idempotency_keys",');
      // And the replay is the recorded answer, byte for byte.
      const again = await h.request({ url, key: 'atomic-key-0001', json: {} });
      expect(again.headers['Idempotent-Replayed']).toBe('true');
      expect(again.body).toBe(res.body);
    },
  );
});
