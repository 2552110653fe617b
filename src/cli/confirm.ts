import type { Factory } from './factory.js';
import { UsageError } from './errors.js';

/**
 * A destructive command goes ahead with `--yes`, or after a yes at the terminal; piped without
 * `--yes` it is a usage error (exit 2) and nothing is sent.
 */
export async function confirmDestructive(
  f: Factory,
  yes: boolean | undefined,
  question: string,
  retry: string,
): Promise<boolean> {
  if (yes) return true;
  if (!f.io.canPrompt())
    throw new UsageError(
      `${question.replace(/\?$/, '')}: pass \`--yes\` to confirm (there is no terminal to ask).`,
      `Example: ${retry} --yes`,
    );
  const p = await f.io.prompter();
  return p.confirm({ message: question, default: false });
}
