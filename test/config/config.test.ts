import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

const ADMIN = { ADMIN_TOKEN: 'a'.repeat(32) };

describe('loadConfig', () => {
  it('fills every default from one set of named constants', () => {
    const c = loadConfig(ADMIN);
    expect(c).toMatchObject({
      port: 3000,
      mongoUrl: 'mongodb://127.0.0.1:27017/herald',
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'herald',
      logLevel: 'info',
      publicUrl: 'http://localhost:3000',
      bodyLimitBytes: 1024 * 1024,
      deliveryInDoubt: 'resend',
    });
  });

  it('takes DELIVERY_IN_DOUBT=hold and refuses anything but resend or hold', () => {
    expect(loadConfig({ ...ADMIN, DELIVERY_IN_DOUBT: 'hold' }).deliveryInDoubt).toBe('hold');
    expect(() => loadConfig({ ...ADMIN, DELIVERY_IN_DOUBT: 'once' })).toThrow(
      new ConfigError('config: DELIVERY_IN_DOUBT must be one of resend, hold (got "once")'),
    );
  });

  it.each([
    [{}, 'config: ADMIN_TOKEN is required but not set'],
    [{ ADMIN_TOKEN: 'short' }, 'config: ADMIN_TOKEN must be at least 24 characters'],
    [{ ...ADMIN, PORT: 'abc' }, 'config: PORT must be an integer from 1 to 65535 (got "abc")'],
    [{ ...ADMIN, PORT: '70000' }, 'config: PORT must be an integer from 1 to 65535 (got "70000")'],
    [
      { ...ADMIN, MONGO_URL: 'postgres://x' },
      'config: MONGO_URL must use mongodb: or mongodb+srv: (got postgres:)',
    ],
    [{ ...ADMIN, REDIS_URL: 'not a url' }, 'config: REDIS_URL must be a URL (redis: or rediss:)'],
    [
      { ...ADMIN, LOG_LEVEL: 'loud' },
      'config: LOG_LEVEL must be one of debug, info, warn, error (got "loud")',
    ],
    [{ ...ADMIN, REDIS_PREFIX: 'a b' }, 'config: REDIS_PREFIX must be 1-64 letters, digits, "_", "." or "-"'],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });

  it('reads the worker timings; the lock must outlast a relay request', () => {
    expect(loadConfig(ADMIN)).toMatchObject({
      relayTimeoutMs: 10_000,
      lockDurationMs: 15_000,
      stalledIntervalMs: 5_000,
      retryBaseMs: 1_000,
      relayRateLimitPatienceMs: 3_600_000,
    });
    expect(loadConfig(ADMIN).inputDeflateMinBytes).toBe(1024);
    expect(loadConfig({ ...ADMIN, INPUT_DEFLATE_MIN_BYTES: '67108865' }).inputDeflateMinBytes).toBe(
      67_108_865,
    );
    expect(() => loadConfig({ ...ADMIN, INPUT_DEFLATE_MIN_BYTES: '0' })).toThrow(
      new ConfigError('config: INPUT_DEFLATE_MIN_BYTES must be an integer from 1 to 67108865 (got "0")'),
    );
    expect(loadConfig({ ...ADMIN, RELAY_RATE_LIMIT_PATIENCE_MS: '90000' }).relayRateLimitPatienceMs).toBe(
      90_000,
    );
    expect(() => loadConfig({ ...ADMIN, RELAY_RATE_LIMIT_PATIENCE_MS: '10' })).toThrow(
      new ConfigError(
        'config: RELAY_RATE_LIMIT_PATIENCE_MS must be an integer from 1000 to 604800000 (got "10")',
      ),
    );
    expect(
      loadConfig({ ...ADMIN, RELAY_TIMEOUT_MS: '300', LOCK_DURATION_MS: '1000', RETRY_BASE_MS: '50' }),
    ).toMatchObject({ relayTimeoutMs: 300, lockDurationMs: 1_000, retryBaseMs: 50 });
    expect(() => loadConfig({ ...ADMIN, RELAY_TIMEOUT_MS: '20000' })).toThrow(
      new ConfigError('config: LOCK_DURATION_MS (15000) must be greater than RELAY_TIMEOUT_MS (20000)'),
    );
    expect(() => loadConfig({ ...ADMIN, RELAY_TIMEOUT_MS: '0' })).toThrow(
      new ConfigError('config: RELAY_TIMEOUT_MS must be an integer from 100 to 600000 (got "0")'),
    );
    expect(loadConfig(ADMIN).sentLogClaimIdleMs).toBe(30_000);
    expect(loadConfig({ ...ADMIN, SENT_LOG_CLAIM_IDLE_MS: '2000' }).sentLogClaimIdleMs).toBe(2_000);
    expect(() => loadConfig({ ...ADMIN, SENT_LOG_CLAIM_IDLE_MS: '10' })).toThrow(
      new ConfigError('config: SENT_LOG_CLAIM_IDLE_MS must be an integer from 1000 to 3600000 (got "10")'),
    );
    expect(loadConfig(ADMIN).renderedRetentionDays).toBe(7);
    expect(loadConfig({ ...ADMIN, RENDERED_RETENTION_DAYS: '0' }).renderedRetentionDays).toBe(0);
    expect(() => loadConfig({ ...ADMIN, RENDERED_RETENTION_DAYS: '-1' })).toThrow(
      new ConfigError('config: RENDERED_RETENTION_DAYS must be an integer from 0 to 3650 (got "-1")'),
    );
  });

  it('lets the environment win over fallbacks, and treats empty values as unset', () => {
    const c = loadConfig({ ...ADMIN, PORT: '', LOG_LEVEL: 'debug' }, { PORT: '4000', LOG_LEVEL: 'warn' });
    expect(c.port).toBe(4000);
    expect(c.logLevel).toBe('debug');
  });

  it('drops a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ ...ADMIN, PUBLIC_URL: 'https://herald.example.com/' }).publicUrl).toBe(
      'https://herald.example.com',
    );
  });

  it('reads the console settings: on by default, the built folder of this package, 30 min idle', () => {
    const c = loadConfig(ADMIN);
    expect(c).toMatchObject({ console: true, consoleSessionIdleS: 1800, consoleSecureCookie: false });
    // Found from src/config (tsx) and dist/config (built) alike: two levels below the package root.
    expect(c.consoleDir).toBe(join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'console'));
    expect(
      loadConfig({ ...ADMIN, CONSOLE: 'off', CONSOLE_DIR: 'some/dir', CONSOLE_SESSION_IDLE_S: '60' }),
    ).toMatchObject({ console: false, consoleDir: resolve('some/dir'), consoleSessionIdleS: 60 });
    expect(() => loadConfig({ ...ADMIN, CONSOLE: 'yes' })).toThrow(
      new ConfigError('config: CONSOLE must be on or off (got "yes")'),
    );
    expect(c.consoleSessionMaxS).toBe(43_200);
    expect(loadConfig({ ...ADMIN, CONSOLE_SESSION_MAX_S: '3600' }).consoleSessionMaxS).toBe(3600);
    expect(() => loadConfig({ ...ADMIN, CONSOLE_SESSION_MAX_S: '0' })).toThrow(
      new ConfigError('config: CONSOLE_SESSION_MAX_S must be an integer from 60 to 2592000 (got "0")'),
    );
    expect(() => loadConfig({ ...ADMIN, CONSOLE_SESSION_IDLE_S: '0' })).toThrow(
      new ConfigError('config: CONSOLE_SESSION_IDLE_S must be an integer from 1 to 86400 (got "0")'),
    );
  });

  it("reads an approved template's consumption: 0.5 by default, above 0 and at most 1", () => {
    expect(loadConfig(ADMIN).approvedTemplateConsumption).toBe(0.5);
    for (const [raw, value] of [
      ['0.25', 0.25],
      ['1', 1],
      ['.1', 0.1],
      ['1.0', 1],
    ] as const) {
      expect(loadConfig({ ...ADMIN, APPROVED_TEMPLATE_CONSUMPTION: raw }).approvedTemplateConsumption).toBe(
        value,
      );
    }
    for (const raw of ['0', '0.0', '1.5', '2', '-0.5', 'half', '1e-1', 'NaN', 'Infinity', '0x1']) {
      expect(() => loadConfig({ ...ADMIN, APPROVED_TEMPLATE_CONSUMPTION: raw })).toThrow(
        new ConfigError(
          `config: APPROVED_TEMPLATE_CONSUMPTION must be a number above 0 and at most 1 (got "${raw}")`,
        ),
      );
    }
  });

  it('trusts a reverse proxy only when told to, and then only as many hops as set', () => {
    expect(loadConfig(ADMIN)).toMatchObject({ trustProxy: false, trustProxyHops: 1 });
    expect(loadConfig({ ...ADMIN, TRUST_PROXY: 'on', TRUST_PROXY_HOPS: '2' })).toMatchObject({
      trustProxy: true,
      trustProxyHops: 2,
    });
    expect(() => loadConfig({ ...ADMIN, TRUST_PROXY: 'true' })).toThrow(
      new ConfigError('config: TRUST_PROXY must be on or off (got "true")'),
    );
    expect(() => loadConfig({ ...ADMIN, TRUST_PROXY_HOPS: '0' })).toThrow(
      new ConfigError('config: TRUST_PROXY_HOPS must be an integer from 1 to 16 (got "0")'),
    );
  });

  it('marks console cookies Secure when PUBLIC_URL is https', () => {
    expect(loadConfig({ ...ADMIN, PUBLIC_URL: 'https://herald.example.com' }).consoleSecureCookie).toBe(true);
    expect(loadConfig({ ...ADMIN, PUBLIC_URL: 'HTTPS://herald.example.com' }).consoleSecureCookie).toBe(true);
    expect(loadConfig({ ...ADMIN, PUBLIC_URL: 'http://herald.example.com' }).consoleSecureCookie).toBe(false);
  });

  it('reads the capture limits: 20 payloads of at most 64 KiB, kept 7 days', () => {
    expect(loadConfig(ADMIN)).toMatchObject({
      captureMaxItems: 20,
      captureMaxBytes: 65_536,
      captureTtlS: 604_800,
    });
    expect(
      loadConfig({ ...ADMIN, CAPTURE_MAX_ITEMS: '0', CAPTURE_MAX_BYTES: '0', CAPTURE_TTL_S: '60' }),
    ).toMatchObject({ captureMaxItems: 0, captureMaxBytes: 0, captureTtlS: 60 });
    expect(() => loadConfig({ ...ADMIN, CAPTURE_MAX_ITEMS: '1001' })).toThrow(
      new ConfigError('config: CAPTURE_MAX_ITEMS must be an integer from 0 to 1000 (got "1001")'),
    );
    expect(() => loadConfig({ ...ADMIN, CAPTURE_TTL_S: '59' })).toThrow(
      new ConfigError('config: CAPTURE_TTL_S must be an integer from 60 to 7776000 (got "59")'),
    );
  });

  it('reads SECRETS_KEY as 32 bytes in hex or base64, and older keys after it; none by default', () => {
    expect(loadConfig(ADMIN)).toMatchObject({ secretsKey: null, secretsKeysPrevious: [] });
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const old = Buffer.alloc(32, 7);
    expect(loadConfig({ ...ADMIN, SECRETS_KEY: key.toString('hex') }).secretsKey).toEqual(key);
    expect(loadConfig({ ...ADMIN, SECRETS_KEY: key.toString('base64') }).secretsKey).toEqual(key);
    expect(loadConfig({ ...ADMIN, SECRETS_KEY: key.toString('base64url') }).secretsKey).toEqual(key);
    expect(
      loadConfig({
        ...ADMIN,
        SECRETS_KEY: key.toString('hex'),
        SECRETS_KEYS_PREVIOUS: `${old.toString('base64')}, ${Buffer.alloc(32, 8).toString('hex')}`,
      }).secretsKeysPrevious,
    ).toEqual([old, Buffer.alloc(32, 8)]);
    const message =
      'config: SECRETS_KEY must be 32 bytes written as 64 hex digits or in base64 (openssl rand -hex 32)';
    for (const bad of [
      'abc',
      key.toString('hex').slice(2),
      Buffer.alloc(31).toString('base64'),
      'x'.repeat(64),
    ]) {
      expect(() => loadConfig({ ...ADMIN, SECRETS_KEY: bad })).toThrow(new ConfigError(message));
    }
  });
});
