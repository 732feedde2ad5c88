import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config/config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ XDG_DATA_HOME: '/tmp/xdg' });
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8787);
    expect(c.logLevel).toBe('info');
    expect(c.tools).toEqual([]);
    expect(c.createFirstKey).toBe(true);
    if (process.platform === 'linux') expect(c.dataDir).toBe(path.join('/tmp/xdg', 'trawl'));
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads TRAWL_* variables, and flags win over them', () => {
    const env = {
      TRAWL_PORT: '9000',
      TRAWL_HOST: '0.0.0.0',
      TRAWL_TOOLS: 'search, get_contents',
      TRAWL_DATA_DIR: 'rel',
    };
    const c = loadConfig(env, { port: '9100' });
    expect(c.port).toBe(9100);
    expect(c.host).toBe('0.0.0.0');
    expect(c.tools).toEqual(['search', 'get_contents']);
    expect(c.dataDir).toBe(path.resolve('rel'));
  });

  it('treats an empty variable as unset (as MCP bundles pass empty user settings)', () => {
    expect(loadConfig({ TRAWL_LOG_LEVEL: '', TRAWL_TOOLS: '' }).logLevel).toBe('info');
  });

  it.each([
    [{ TRAWL_PORT: 'x' }, {}, /environment variable TRAWL_PORT="x"/],
    [{}, { port: '-1' }, /flag --port="-1": must be at least 0/],
    [{ TRAWL_LOG_LEVEL: 'verbose' }, {}, /TRAWL_LOG_LEVEL="verbose": must be one of/],
    [{ TRAWL_MAX_BODY_BYTES: '10' }, {}, /TRAWL_MAX_BODY_BYTES/],
    [{ TRAWL_CREATE_FIRST_KEY: 'maybe' }, {}, /TRAWL_CREATE_FIRST_KEY/],
  ])('fails fast naming the setting: %j %j', (env, flags, message) => {
    expect(() => loadConfig(env, flags)).toThrow(ConfigError);
    expect(() => loadConfig(env, flags)).toThrow(message);
  });

  it('reads the web-search provider settings, with a 4 s provider timeout by default', () => {
    const none = loadConfig({});
    expect(none.searxngUrl).toBeUndefined();
    expect(none.braveApiKey).toBeUndefined();
    expect(none.upstreamUrl).toBeUndefined();
    expect(none.upstreamApiKey).toBeUndefined();
    expect(none.providerTimeoutMs).toBe(4000);
    const c = loadConfig(
      {
        TRAWL_SEARXNG_URL: 'http://127.0.0.1:8888/',
        TRAWL_BRAVE_API_KEY: 'brave-key',
        TRAWL_UPSTREAM_URL: 'https://api.example.com',
        TRAWL_UPSTREAM_API_KEY: 'up-key',
        TRAWL_PROVIDER_TIMEOUT_MS: '2500',
      },
      { providerTimeoutMs: '3000' },
    );
    expect(c).toMatchObject({
      searxngUrl: 'http://127.0.0.1:8888/',
      braveApiKey: 'brave-key',
      upstreamUrl: 'https://api.example.com',
      upstreamApiKey: 'up-key',
      providerTimeoutMs: 3000,
    });
  });

  it('accepts TRAWL_EMBEDDINGS_BASE_URL as another name of TRAWL_EMBEDDINGS_URL', () => {
    expect(loadConfig({ TRAWL_EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1' }).embeddingsUrl).toBe(
      'http://127.0.0.1:11434/v1',
    );
    const both = { TRAWL_EMBEDDINGS_URL: 'http://a.test/v1', TRAWL_EMBEDDINGS_BASE_URL: 'http://a.test/v1' };
    expect(loadConfig(both).embeddingsUrl).toBe('http://a.test/v1');
    expect(loadConfig({ TRAWL_EMBEDDINGS_BASE_URL: '' }).embeddingsUrl).toBeUndefined();
    expect(
      loadConfig({ TRAWL_EMBEDDINGS_BASE_URL: 'http://b.test' }, { embeddingsUrl: 'http://c.test' }).embeddingsUrl,
    ).toBe('http://c.test');
    expect(() => loadConfig({ TRAWL_EMBEDDINGS_BASE_URL: 'ftp://x' })).toThrow(
      /environment variable TRAWL_EMBEDDINGS_BASE_URL=/,
    );
    expect(() => loadConfig({ ...both, TRAWL_EMBEDDINGS_BASE_URL: 'http://b.test' })).toThrow(
      /TRAWL_EMBEDDINGS_URL and TRAWL_EMBEDDINGS_BASE_URL are both set, to different values/,
    );
  });

  it.each([
    [{ TRAWL_SEARXNG_URL: 'searx.local' }, /TRAWL_SEARXNG_URL="searx.local"/],
    [{ TRAWL_UPSTREAM_URL: 'file:///etc/passwd' }, /TRAWL_UPSTREAM_URL=/],
    [{ TRAWL_PROVIDER_TIMEOUT_MS: '99' }, /TRAWL_PROVIDER_TIMEOUT_MS="99": must be at least 100/],
    [{ TRAWL_PROVIDER_TIMEOUT_MS: '60001' }, /TRAWL_PROVIDER_TIMEOUT_MS="60001"/],
    [{ TRAWL_PROVIDER_TIMEOUT_MS: 'soon' }, /TRAWL_PROVIDER_TIMEOUT_MS/],
  ])('rejects a bad provider setting: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the OAuth settings: URLs without a trailing slash, audiences, the team claim and email teams', () => {
    const c = loadConfig({
      TRAWL_PUBLIC_URL: 'https://trawl.example.com/',
      TRAWL_AUTH_ISSUER: 'https://idp.example.com/realms/acme/',
      TRAWL_AUTH_AUDIENCE: 'api://trawl, https://trawl.example.com/mcp',
      TRAWL_AUTH_EMAIL_TEAMS: 'Example.com=engineering, other.org = team_x1',
    });
    expect(c.publicUrl).toBe('https://trawl.example.com');
    expect(c.authIssuer).toBe('https://idp.example.com/realms/acme/'); // as tokens' iss writes it
    expect(c.authAudience).toEqual(['api://trawl', 'https://trawl.example.com/mcp']);
    expect(c.authTeamClaim).toBe('trawl_team');
    expect(c.authEmailTeams).toEqual({ 'example.com': 'engineering', 'other.org': 'team_x1' });
    const defaults = loadConfig({});
    expect([defaults.publicUrl, defaults.authIssuer, defaults.authEmailTeams]).toEqual([undefined, undefined, {}]);
  });

  it('refuses bad OAuth settings, naming the variable', () => {
    expect(() => loadConfig({ TRAWL_PUBLIC_URL: 'ftp://x.example' })).toThrow(/TRAWL_PUBLIC_URL.*http\(s\)/);
    expect(() => loadConfig({ TRAWL_PUBLIC_URL: 'https://x.example/?a=1' })).toThrow(/no query/);
    expect(() => loadConfig({ TRAWL_AUTH_ISSUER: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRAWL_AUTH_EMAIL_TEAMS: 'example.com' })).toThrow(
      /TRAWL_AUTH_EMAIL_TEAMS.*not domain=TEAM/,
    );
  });

  it('documents every setting with an env var and a flag', () => {
    for (const s of Object.values(SETTINGS)) {
      // Trawl's own, or OpenTelemetry's standard variables, which Trawl reads as the SDK does
      expect(s.env).toMatch(/^(TRAWL|OTEL)_[A-Z0-9_]+$/);
      expect(s.flag).toMatch(/^--[a-z0-9-]+$/);
      expect(s.doc.length).toBeGreaterThan(10);
    }
  });
});
