import { z } from 'zod';
import { AbilitySchema, noQuery, Timestamp, Uuid } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

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

/** The schemas of the account area's operations (their routes: `routes.ts`). */
export const accountSchemas = {
  getMe: { params: z.strictObject({}), query: noQuery, body: undefined, response: Me },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
