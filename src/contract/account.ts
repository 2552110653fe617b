import { z } from 'zod';
import { AbilitySchema, Timestamp, Uuid } from './common.js';

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
