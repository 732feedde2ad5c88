import { describe, expect, it } from 'vitest';
import { createOriginGuard } from '../../src/http/origin-guard.js';
import { isPublicIp, nonPublicHostReason } from '../../src/lib/ip.js';

const h = (init: Record<string, string>) => new Headers(init);

describe('origin guard', () => {
  const loopback = createOriginGuard({ listenHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [] });

  it('accepts loopback hosts and origins when listening on loopback', () => {
    expect(() => loopback(h({ host: '127.0.0.1:8787' }))).not.toThrow();
    expect(() => loopback(h({ host: 'localhost:8787', origin: 'http://localhost:6274' }))).not.toThrow();
    expect(() => loopback(h({ host: '[::1]:8787' }))).not.toThrow();
  });

  it('refuses a rebinding host or a foreign origin', () => {
    expect(() => loopback(h({ host: 'attacker.example:8787' }))).toThrow(/Host "attacker.example:8787"/);
    expect(() => loopback(h({ host: 'localhost', origin: 'https://attacker.example' }))).toThrow(/Origin/);
  });

  it('uses the operator lists when set, and checks no host on a public bind without one', () => {
    const team = createOriginGuard({
      listenHost: '0.0.0.0',
      allowedHosts: ['trawl.corp.example'],
      allowedOrigins: ['https://ide.corp.example'],
    });
    expect(() => team(h({ host: 'trawl.corp.example', origin: 'https://ide.corp.example' }))).not.toThrow();
    expect(() => team(h({ host: 'other.example' }))).toThrow(/not allowed/);
    const open = createOriginGuard({ listenHost: '0.0.0.0', allowedHosts: [], allowedOrigins: [] });
    expect(() => open(h({ host: 'anything.example' }))).not.toThrow();
  });
});

describe('public addresses', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fd00::1',
    '::ffff:10.0.0.1',
    '0.0.0.0',
  ])('%s is not public', (ip) => expect(isPublicIp(ip)).toBe(false));
  it.each(['93.184.216.34', '2606:2800:220:1::1', '8.8.8.8'])('%s is public', (ip) =>
    expect(isPublicIp(ip)).toBe(true),
  );
  it('refuses local names', () => {
    expect(nonPublicHostReason('localhost')).toMatch(/this machine/);
    expect(nonPublicHostReason('api.localhost')).toMatch(/this machine/);
    expect(nonPublicHostReason('printer.local')).toMatch(/private-network/);
    expect(nonPublicHostReason('intranet')).toMatch(/not a public domain/);
    expect(nonPublicHostReason('hooks.example.com')).toBeUndefined();
  });
});
