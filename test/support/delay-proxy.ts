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
    // Chunks keep their order: each leaves no earlier than the one before it.
    let last = 0;
    from.on('data', (chunk) => {
      const at = Math.max(last, Date.now() + minMs + Math.random() * (maxMs - minMs));
      last = at;
      setTimeout(() => to.writable && to.write(chunk), at - Date.now());
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, last - Date.now())));
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
