/**
 * Test helper: a TCP proxy on a loopback port in front of another address (PostgreSQL), which a test can
 * cut (every connection reset, new ones refused, as a database restart or a network fault does) and open
 * again on the same port.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Resets every open connection and stops listening: connections are refused until `open()`. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** A proxy from `127.0.0.1:<free port>` to `target` (`host`, `port`). */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined); // a reset is what a cut is for
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.resetAndDestroy();
    await closed;
  };
  return {
    port,
    cut,
    open: () => listen(port),
    close: async () => {
      if (server.listening) await cut();
    },
  };
}
