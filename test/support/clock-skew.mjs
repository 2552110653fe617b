// Preloaded with `node --import` (NODE_OPTIONS): this process's wall clock reads
// WCM_TEST_CLOCK_SKEW_MS milliseconds ahead (behind, if negative) of the machine's, as a host whose
// clock drifted would. `Date.now()`, `new Date()`, `Date()` and `performance.timeOrigin` move;
// intervals (`performance.now()`, timers, `process.hrtime`) do not. Nothing else changes.
const offset = Number(process.env.WCM_TEST_CLOCK_SKEW_MS ?? 0);
if (!Number.isFinite(offset)) throw new Error(`WCM_TEST_CLOCK_SKEW_MS must be a number of milliseconds`);
if (offset !== 0) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  const now = () => realNow() + offset;
  globalThis.Date = new Proxy(RealDate, {
    // `new Date()` (and a subclass's `super()`) is now; with arguments, the date they name.
    construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget),
    // `Date()` called as a function: now, as a string.
    apply: () => new RealDate(now()).toString(),
    get: (target, prop, receiver) => (prop === 'now' ? now : Reflect.get(target, prop, receiver)),
  });
  const origin = performance.timeOrigin + offset;
  Object.defineProperty(performance, 'timeOrigin', { value: origin, configurable: true, enumerable: true });
}
