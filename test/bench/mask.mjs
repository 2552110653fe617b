// `node test/bench/mask.mjs` (after `npm run build`): how long `--log-bodies` masking takes for a
// 1 MiB body of each shape that once backtracked, and of ordinary JSON (issue 47: target < 50 ms).
// Prints the median and the slowest of 50 runs per shape, in milliseconds.
import { maskBody } from '../../dist/src/server/emulator/mask.js';

const MIB = 1024 * 1024;
const shapes = {
  'repeated `code`': 'code'.repeat(MIB / 4),
  'repeated `code: "x,`': 'code: "x, '.repeat(MIB / 10),
  'one word': 'a'.repeat(MIB),
  'repeated `a@`': 'a@'.repeat(MIB / 2),
  'digits and spaces': '1 '.repeat(MIB / 2),
  'a form of `code=`': 'code=&'.repeat(MIB / 6),
  'JSON of `code` keys': `{${'"code":"code",'.repeat(MIB / 15)}"x":1}`,
  'JSON nested 1M deep': '['.repeat(MIB),
  'JSON records': JSON.stringify(
    Array.from({ length: 6000 }, (_, i) => ({
      id: i,
      email: `u${i}@example.com`,
      card: '4242 4242 4242 4242',
      note: 'x'.repeat(100),
    })),
  ).slice(0, MIB),
};
for (const [name, body] of Object.entries(shapes)) {
  const times = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    maskBody(body);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(24)} ${(body.length / MIB).toFixed(2)} MiB  median ${times[25].toFixed(3)} ms  max ${times[49].toFixed(3)} ms`,
  );
}
