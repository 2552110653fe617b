import { ABILITIES, type Ability } from '../../../contract/enums.js';

/** Space-separated abilities; null when one is unknown. No scope asks for all seven (shown on the consent page). */
export function parseScope(scope: string | undefined): Ability[] | null {
  if (scope === undefined || scope.trim() === '') return [...ABILITIES];
  const out: Ability[] = [];
  for (const s of scope.trim().split(/ +/)) {
    if (!(ABILITIES as readonly string[]).includes(s)) return null;
    if (!out.includes(s as Ability)) out.push(s as Ability);
  }
  return out;
}
