/**
 * Test helper: a webhook receiver on 127.0.0.1:0 that records every delivery, checks its
 * `Svc-Signature` with the monitor's secret (as the README tells receivers to), and can fail, stall or
 * redirect on request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/fetch/webhook-signing.js';

export interface Delivery {
  path: string;
  event: { id: string; object: string; type: string; data: Record<string, unknown>; createdAt: string };
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** Whether the signature verified with one of the receiver's secrets. */
  verified: boolean;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Every request that reached the receiver, answered or not. */
  hits: number;
  /** The secrets signatures are checked with (each monitor's, added once it is created). */
  secrets: string[];
  /** Answer the next `n` requests with this status. */
  failNext(n: number, status?: number): void;
  /** Hold the next `n` requests for `ms` before answering. */
  stallNext(n: number, ms: number): void;
  /** Hold every request from now on unanswered until `release()`, which answers them and stops holding. */
  hold(): void;
  release(): void;
  /** Answer the next request with a redirect to `location`. */
  redirectNext(location: string, status?: number): void;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  let fail: { n: number; status: number } = { n: 0, status: 500 };
  let stall = { n: 0, ms: 0 };
  let redirect: { location: string; status: number } | undefined;
  /** While holding: the answers of the requests held, run by `release()`. */
  let held: (() => void)[] | undefined;
  const receiver = {
    deliveries: [] as Delivery[],
    hits: 0,
    secrets: [] as string[],
  };
  const server = http.createServer((req, res) => {
    receiver.hits++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const answer = () => {
        if (redirect) {
          const { location, status } = redirect;
          redirect = undefined;
          res.writeHead(status, { location }).end();
          return;
        }
        if (fail.n > 0) {
          fail.n--;
          res.writeHead(fail.status).end('nope');
          return;
        }
        const header = req.headers['svc-signature'];
        receiver.deliveries.push({
          path: req.url ?? '/',
          event: JSON.parse(raw) as Delivery['event'],
          headers: req.headers,
          raw,
          verified: receiver.secrets.some((secret) => verifySignature(String(header), raw, secret)),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      };
      if (held) held.push(answer);
      else if (stall.n > 0) {
        stall.n--;
        setTimeout(answer, stall.ms);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://${host}:${port}/hook`,
    failNext(n: number, status = 500) {
      fail = { n, status };
    },
    stallNext(n: number, ms: number) {
      stall = { n, ms };
    },
    redirectNext(location: string, status = 307) {
      redirect = { location, status };
    },
    hold() {
      held ??= [];
    },
    release() {
      const answers = held ?? [];
      held = undefined;
      for (const answer of answers) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
