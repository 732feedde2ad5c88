import { describe, expect, it } from 'vitest';
import { createOriginGuard } from '../../src/http/origin-guard.js';
import { isPublicIp, nonPublicHostReason } from '../../src/lib/ip.js';
import { isLoopbackHostname } from '../../src/lib/loopback.js';

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

  it.each([
    'http://127.evil.example',
    'http://127.0.0.1.evil.example',
    'http://localhost.evil.example',
    'http://evil.localhost',
    'http://localhost.',
    'http://[::2]',
    'http://[::ffff:127.0.0.1]',
    'http://0.0.0.0',
    'http://localhost@evil.example',
    'http://evil.example@localhost',
    'http://user:pw@127.0.0.1',
    'http://localhost/path',
    'http://localhost?x',
    'ftp://localhost',
    'localhost',
    'not an origin',
  ])('refuses the origin %s (not a loopback origin)', (origin) => {
    expect(() => loopback(h({ host: '127.0.0.1:8787', origin }))).toThrow(/Origin/);
  });

  it.each([
    'http://localhost',
    'http://localhost:6274',
    'HTTP://LOCALHOST:6274',
    'http://localhost:6274/',
    'https://127.0.0.1:8787',
    'http://127.255.3.4',
    'http://[::1]:8787',
    'http://[0:0:0:0:0:0:0:1]',
  ])('accepts the loopback origin %s', (origin) => {
    expect(() => loopback(h({ host: '127.0.0.1:8787', origin }))).not.toThrow();
  });

  it.each([
    '127.evil.example',
    '127.0.0.1.evil.example:8787',
    'localhost.evil.example',
    'localhost.',
    'evil.example@localhost',
    'localhost/x',
    '',
  ])('refuses the Host %s on a loopback listener', (host) => {
    expect(() => loopback(h({ host }))).toThrow(/Host/);
  });

  it.each(['LOCALHOST:8787', '127.0.0.2', '[0:0::1]:8787', 'localhost'])('accepts the Host %s', (host) => {
    expect(() => loopback(h({ host }))).not.toThrow();
  });

  it('refuses a missing Host on a loopback listener', () => {
    expect(() => loopback(h({}))).toThrow(/Host ""/);
  });

  it('compares configured origins by scheme, host and port exactly', () => {
    const team = createOriginGuard({
      listenHost: '0.0.0.0',
      allowedHosts: [],
      allowedOrigins: ['https://IDE.corp.example/', 'http://tools.corp.example:8080', 'vscode-webview://abc'],
    });
    const ok = (origin: string) => () => team(h({ host: 'x', origin }));
    expect(ok('https://ide.corp.example')).not.toThrow();
    expect(ok('https://ide.corp.example:443')).not.toThrow(); // the default port is the same origin
    expect(ok('http://tools.corp.example:8080')).not.toThrow();
    expect(ok('vscode-webview://abc')).not.toThrow();
    expect(ok('http://ide.corp.example')).toThrow(/not allowed/); // scheme
    expect(ok('https://ide.corp.example:8443')).toThrow(/not allowed/); // port
    expect(ok('http://tools.corp.example')).toThrow(/not allowed/);
    expect(ok('https://ide.corp.example.evil.example')).toThrow(/not allowed/);
    expect(ok('https://evil-ide.corp.example')).toThrow(/not allowed/);
    expect(ok('vscode-webview://other')).toThrow(/not allowed/); // another opaque origin, not "null" for all
    expect(ok('https://ide.corp.example@evil.example')).toThrow(/not a valid origin/);
  });

  it('accepts Origin: null unless /mcp is keyless', () => {
    expect(() => loopback(h({ host: 'localhost', origin: 'null' }))).not.toThrow();
    const keyless = createOriginGuard({ listenHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [], keyless: true }); // prettier-ignore
    expect(() => keyless(h({ host: 'localhost', origin: 'null' }))).toThrow(/Origin "null".*TRAWL_MCP_KEYLESS/);
    expect(() => keyless(h({ host: 'localhost', origin: 'http://localhost:3000' }))).not.toThrow();
    expect(() => keyless(h({ host: 'localhost', origin: 'http://127.evil.example' }))).toThrow(/Origin/);
    expect(() => keyless(h({ host: '127.evil.example' }))).toThrow(/Host/);
  });
});

describe('loopback names', () => {
  it.each(['localhost', 'LocalHost', '127.0.0.1', '127.9.9.9', '::1', '[::1]', '0:0:0:0:0:0:0:1'])(
    '%s is loopback',
    (name) => expect(isLoopbackHostname(name)).toBe(true),
  );
  it.each([
    '127.evil.example',
    '127.1',
    '127.0.0.1.nip.io',
    'localhost.',
    'a.localhost',
    '0.0.0.0',
    '::',
    '128.0.0.1',
    '[::2]',
    '::ffff:127.0.0.1',
    '',
  ])(
    // prettier-ignore
    '%s is not loopback',
    (name) => expect(isLoopbackHostname(name)).toBe(false),
  );
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
