import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of `target` that holds every chunk, each way, for `minMs`–`maxMs` before passing it on. */
export interface DelayProxy {
  port: number;
  /** Drops every connection through the proxy at once (as a database restart would); new ones still pass. */
  cut(): void;
  close(): Promise<void>;
}

export async function delayProxy(
  target: { host: string; port: number },
  minMs: number,
  maxMs: number,
): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket) => {
    // Chunks keep their order: one queue each way, drained by one timer. (A timer per chunk does
    // not: Node schedules a timer from the event loop's cached time, not Date.now(), so under load
    // a later chunk's timer could fire first, and the reordered bytes left postgres.js waiting for
    // a reply that never parsed: a hang, not a delay.)
    const queue: Array<{ at: number; chunk: Buffer | null }> = [];
    let timer: NodeJS.Timeout | null = null;
    const pump = () => {
      timer = null;
      while (queue.length && queue[0].at <= Date.now()) {
        const { chunk } = queue.shift()!;
        if (chunk === null) to.end();
        else if (to.writable) to.write(chunk);
      }
      if (queue.length) timer = setTimeout(pump, queue[0].at - Date.now());
    };
    const push = (chunk: Buffer | null) => {
      const last = queue.length ? queue[queue.length - 1].at : 0;
      queue.push({ at: Math.max(last, Date.now() + minMs + Math.random() * (maxMs - minMs)), chunk });
      timer ??= setTimeout(pump, queue[0].at - Date.now());
    };
    from.on('data', (chunk: Buffer) => push(chunk));
    from.on('end', () => push(null));
    from.on('error', () => to.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
