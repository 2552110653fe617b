import { z } from 'zod';
import { AbilitySchema, noQuery, Timestamp, Uuid } from './common.js';
import type { OperationId } from './table.js';
import type { OperationSchemas } from './route.js';

export const Me = z
  .object({
    user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
    token: z.object({
      name: z.string(),
      kind: z.enum(['personal', 'oauth']),
      abilities: z.array(AbilitySchema),
      expires_at: Timestamp.nullable(),
    }),
    workspaces: z.array(z.object({ id: Uuid, name: z.string(), role: z.string() })),
  })
  .meta({ id: 'Me' });

/** The schemas of the account area's operations (their routes: `routes/account.ts`). */
export const accountSchemas = {
  getMe: { params: z.strictObject({}), query: noQuery, body: undefined, response: Me },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
