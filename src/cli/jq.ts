import { CliError, EXIT, UsageError } from './errors.js';

/**
 * `--jq`: jq compiled to WebAssembly (jq-wasm, loaded only with the flag), so scripts need no jq
 * binary. Output like `jq -r` (gh's --jq does the same): strings print without quotes.
 */
const load = () => import('jq-wasm');

const compileError = (message: string) => /compile error|syntax error/i.test(message);
const firstLines = (message: string) =>
  message
    .replace(/^Failed to execute (JSON|raw) query: /, '')
    .split('\n')
    .slice(0, 3)
    .join('\n');

/** A filter that does not compile is a usage error before anything is sent. */
export async function checkJq(expression: string): Promise<void> {
  const jq = await load();
  try {
    await jq.raw('null', expression, ['-r']);
  } catch (err) {
    const message = (err as Error).message;
    if (compileError(message))
      throw new UsageError(`\`--jq\`: ${firstLines(message)}`, 'See https://jqlang.org/manual/ for the language.');
    // Anything else is about the input (null here); the real input decides.
  }
}

export async function runJq(json: string, expression: string): Promise<string> {
  const jq = await load();
  try {
    const out = await jq.raw(json, expression, ['-r']);
    return out === '' || out.endsWith('\n') ? out : `${out}\n`;
  } catch (err) {
    throw new CliError(`\`--jq\`: ${firstLines((err as Error).message)}`, EXIT.failure);
  }
}
