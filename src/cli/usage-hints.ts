import type { Command, Option } from 'commander';

/**
 * What to say when commander found more arguments than a command takes, and the extra word came
 * right after a switch: `wcm pages ls --published false` reads `false` as an argument, because
 * `--published` takes no value. Commander's own message ("too many arguments") does not say so.
 */
export function switchValueHint(program: Command, argv: string[]): string | undefined {
  const { cmd, at } = commandOf(program, argv);
  // The command's own switches, after its words (the program's `--json` may take a field list).
  const options = cmd === program ? [] : cmd.options;
  for (let i = at + 1; i + 1 < argv.length; i++) {
    const flag = options.find((o) => isSwitch(o) && (o.long === argv[i] || o.short === argv[i]));
    const value = argv[i + 1];
    if (!flag || value.startsWith('-')) continue;
    const name = flag.long ?? flag.short!;
    const off = /^(false|no|off|0)$/i.test(value);
    const bare = name.slice(2);
    const opposites = [`--un${bare}`, `--no-${bare}`, bare.startsWith('un') ? `--${bare.slice(2)}` : ''];
    const opposite = options.find((o) => o.long && opposites.includes(o.long));
    const instead = off
      ? opposite
        ? `; for the opposite use \`${opposite.long}\``
        : '; leave it out to turn it off'
      : '';
    return `\`${name}\` is a switch and takes no value, so \`${value}\` was read as an argument: drop \`${value}\`${instead}.`;
  }
  return undefined;
}

function isSwitch(o: Option): boolean {
  return !o.required && !o.optional && !o.negate;
}

/** The deepest command argv's words name (aliases included), and the index of its word in argv. */
function commandOf(program: Command, argv: string[]): { cmd: Command; at: number } {
  let cmd = program;
  let at = -1;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === argv[i] || c.aliases().includes(argv[i]));
    if (!sub) break;
    cmd = sub;
    at = i;
  }
  return { cmd, at };
}
