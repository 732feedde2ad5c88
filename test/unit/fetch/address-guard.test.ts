import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressGuard } from '../../../src/fetch/address-guard.js';
import { createFetcher } from '../../../src/fetch/fetcher.js';
import { createIpSet, embeddedIpv4, isPublicIp, nonPublicIpReason } from '../../../src/lib/ip.js';
import { fetchError, redirect, send, startSite, testFetcher, type Site } from './fixture.js';

describe('address classification', () => {
  it.each([
    ['127.0.0.2', 'loopback'],
    ['::1', 'loopback'],
    ['10.2.3.4', 'private'],
    ['172.31.255.1', 'private'],
    ['192.168.0.10', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['::ffff:127.0.0.1', 'a form of 127.0.0.1, a loopback'],
    ['::ffff:7f00:1', 'a form of 127.0.0.1, a loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::10.0.0.1', 'a form of 10.0.0.1, a private'],
    ['64:ff9b::a00:1', 'a form of 10.0.0.1'],
    ['2002:7f00:1::', 'a form of 127.0.0.1'],
    ['::7f00:1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('%s is refused as %s', (ip, label) => {
    expect(isPublicIp(ip)).toBe(false);
    expect(nonPublicIpReason(ip)).toContain(label);
  });

  it('accepts public addresses, including NAT64 and 6to4 forms of public IPv4', () => {
    for (const ip of ['8.8.8.8', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8']) {
      expect(nonPublicIpReason(ip), ip).toBeUndefined();
    }
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
  });

  it('parses allowlists and names an invalid entry', () => {
    const set = createIpSet(['127.0.0.1', '10.1.0.0/16', '[fd00::]/8']);
    expect(set.has('127.0.0.1')).toBe(true);
    expect(set.has('127.0.0.2')).toBe(false);
    expect(set.has('10.1.200.3')).toBe(true);
    expect(set.has('fd00::5')).toBe(true);
    expect(set.hasExact('10.1.0.1')).toBe(false);
    expect(() => createIpSet(['10.0.0.0/40'])).toThrow(/"10.0.0.0\/40"/);
    expect(() => createIpSet(['intranet.example'])).toThrow(/not an IP address/);
  });
});

describe('address guard', () => {
  const guard = createAddressGuard({ allowPrivateNetwork: false, privateAllowlist: ['127.0.0.1', '169.254.0.0/16'] });

  it('lets listed addresses through and nothing next to them', () => {
    expect(guard.refusal('127.0.0.1')).toBeUndefined();
    expect(guard.refusal('127.0.0.2')).toMatch(/loopback/);
    expect(guard.refusal('::1')).toMatch(/loopback/);
    expect(guard.refusal('169.254.3.4')).toBeUndefined();
    // A range does not open the metadata endpoint inside it.
    expect(guard.refusal('169.254.169.254')).toMatch(/metadata/);
  });

  it('refuses a resolved name inside lookup, before any connection', async () => {
    const strict = createAddressGuard({ allowPrivateNetwork: false, privateAllowlist: [] });
    const err = await new Promise<unknown>((resolve) => strict.lookup('localhost', { all: true }, (e) => resolve(e)));
    expect(err).toMatchObject({ tag: 'CRAWL_PRIVATE_ADDRESS' });
    expect(String((err as Error).message)).toMatch(/localhost resolves to 127\.0\.0\.1/);
    await expect(strict.resolve('localhost')).rejects.toMatchObject({ tag: 'CRAWL_PRIVATE_ADDRESS' });
  });

  it('is lifted entirely by allowPrivateNetwork', () => {
    const open = createAddressGuard({ allowPrivateNetwork: true, privateAllowlist: [] });
    expect(open.refusal('169.254.169.254')).toBeUndefined();
    expect(() => open.checkHost('metadata.google.internal')).not.toThrow();
  });
});

describe('fetcher SSRF refusals', () => {
  let site: Site;
  const fetcher = testFetcher();
  const strict = createFetcher({ sleep: async () => undefined });

  beforeAll(async () => {
    site = await startSite({
      '/ok': send('<p>ok</p>'),
      '/to-127-0-0-2': (req, res) => redirect(`http://127.0.0.2:${site.port}/ok`)(req, res),
      '/to-v6-loopback': (req, res) => redirect(`http://[::1]:${site.port}/ok`)(req, res),
      '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
      '/to-decimal': (req, res) => redirect(`http://2130706434:${site.port}/ok`)(req, res),
      '/to-mapped': (req, res) => redirect(`http://[::ffff:127.0.0.2]:${site.port}/ok`)(req, res),
      '/to-localhost': (req, res) => redirect(`http://localhost:${site.port}/ok`)(req, res),
    });
  });
  afterAll(async () => {
    await Promise.all([fetcher.close(), strict.close()]);
    await site.close();
  });

  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://[::1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ['http://100.100.100.200/', '100.100.100.200'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal'],
    ['http://100.64.0.1/', '100.64.0.1'],
    ['http://10.0.0.1/', '10.0.0.1'],
    ['http://172.16.0.1/', '172.16.0.1'],
    ['http://192.168.1.1/', '192.168.1.1'],
    ['http://[fe80::1]/', 'fe80::1'],
    ['http://224.0.0.1/', '224.0.0.1'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://[::]/', '::'],
  ])('refuses %s', async (url, named) => {
    const err = await fetchError(strict.fetch({ url, timeoutMs: 2000 }));
    expect(err.tag).toBe('CRAWL_PRIVATE_ADDRESS');
    expect(err.message).toContain(named);
  });

  it('refuses a name that resolves to loopback, at connect time', async () => {
    const err = await fetchError(
      strict.fetch({ url: `http://localhost:${site.port}/ok`, timeoutMs: 2000, robots: false }),
    );
    expect(err.tag).toBe('CRAWL_PRIVATE_ADDRESS');
    expect(err.message).toMatch(/localhost resolves to 127\.0\.0\.1/);
    expect(site.count('/ok')).toBe(0);
  });

  it.each([
    ['/to-127-0-0-2', '127.0.0.2'],
    ['/to-v6-loopback', '::1'],
    ['/to-metadata', '169.254.169.254'],
    ['/to-decimal', '127.0.0.2'],
    ['/to-mapped', '::ffff:7f00:2'],
  ])('refuses the redirect hop of %s', async (path, named) => {
    const err = await fetchError(fetcher.fetch({ url: site.origin + path, timeoutMs: 2000 }));
    expect(err.tag).toBe('CRAWL_PRIVATE_ADDRESS');
    expect(err.message).toContain(named);
  });

  it('reaches the allowlisted address, also through a name resolving to it', async () => {
    const direct = await fetcher.fetch({ url: `${site.origin}/ok`, timeoutMs: 2000 });
    expect(direct.text).toBe('<p>ok</p>');
    const viaName = await fetcher.fetch({ url: `${site.origin}/to-localhost`, timeoutMs: 2000 });
    expect(viaName.url).toBe(`http://localhost:${site.port}/ok`);
  });

  it('reaches private addresses when the operator allows the private network', async () => {
    const open = createFetcher({ allowPrivateNetwork: true });
    try {
      const res = await open.fetch({ url: `http://localhost:${site.port}/ok`, timeoutMs: 2000 });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it.each([
    ['ftp://127.0.0.1/file', /ftp:/],
    ['file:///etc/passwd', /file:/],
    ['http://user:pass@127.0.0.1/', /credentials/],
    ['http://127.0.0.1:25/', /port 25/],
    ['not a url', /not a valid URL/],
  ])('refuses %s as an unsupported URL', async (url, message) => {
    const err = await fetchError(fetcher.fetch({ url, timeoutMs: 2000 }));
    expect(err.tag).toBe('UNSUPPORTED_URL');
    expect(err.message).toMatch(message);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const other = await startSite({ '/': redirect('file:///etc/passwd') });
    try {
      const err = await fetchError(fetcher.fetch({ url: `${other.origin}/`, timeoutMs: 2000 }));
      expect(err.tag).toBe('UNSUPPORTED_URL');
    } finally {
      await other.close();
    }
  });
});
