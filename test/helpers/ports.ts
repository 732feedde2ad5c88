/** Ports for tests: one nothing listens on (a refused connection, on purpose). */
import net from 'node:net';

/** A loopback port that was free a moment ago and that nothing listens on now. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
