import { ConfigError, loadConfig } from '@agw/gateway';
import { describe, expect, it } from 'vitest';
import { approvedInstallation, useGateway } from './helpers/gateway.js';
import { expectEnvelope, expectSchema } from './helpers/http.js';

// Three invokes per installation and capability per minute, so a burst trips the capability bucket.
const gateway = useGateway({
  env: { RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: '3', RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '50' },
});

const read = { id: 'core.org.current.get', params: {} };

/** `"<policy>";<name>=<int>;...` → the policy and its integer parameters (draft-08+ syntax). */
function parseRateLimitField(value: string | null): { policy: string; params: Record<string, number> } {
  expect(value).toMatch(/^"[a-z]+"(;[a-z]+=\d+)+$/);
  const [name, ...pairs] = (value as string).split(';');
  const params = Object.fromEntries(
    pairs.map((pair) => {
      const [key, number] = pair.split('=');
      return [key as string, Number(number)];
    }),
  );
  return { policy: (name as string).slice(1, -1), params };
}

describe('rate limits on invoke', () => {
  it('successes carry RateLimit headers counting down; the call over the limit is 429 with Retry-After', async () => {
    const { key } = await approvedInstallation(gateway);
    const remaining: number[] = [];
    for (let call = 0; call < 3; call += 1) {
      const answer = await gateway.client.post('/mcp/invoke', read, { key, idem: null });
      expect(answer.status).toBe(200);
      expectSchema('InvokeResponse', answer.json);
      const policy = parseRateLimitField(answer.headers.get('ratelimit-policy'));
      expect(policy).toEqual({ policy: 'capability', params: { q: 3, w: 60 } });
      const limit = parseRateLimitField(answer.headers.get('ratelimit'));
      expect(limit.policy).toBe('capability');
      expect(limit.params.t).toBeGreaterThanOrEqual(1);
      expect(limit.params.t).toBeLessThanOrEqual(60);
      remaining.push(limit.params.r as number);
    }
    expect(remaining).toEqual([2, 1, 0]);

    const refused = await gateway.client.post('/mcp/invoke', read, { key, idem: null });
    expect(refused.status).toBe(429);
    const error = expectEnvelope(refused.json, 'rate_limited');
    expect(error.retryable).toBe(true);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.retry_after_seconds).toBe(retryAfter);
    const limit = parseRateLimitField(refused.headers.get('ratelimit'));
    expect(limit).toEqual({ policy: 'capability', params: { r: 0, t: retryAfter } });
    expect(parseRateLimitField(refused.headers.get('ratelimit-policy')).params).toEqual({ q: 3, w: 60 });
  });

  it('exhausting one installation leaves another untouched', async () => {
    const first = await approvedInstallation(gateway);
    const second = await approvedInstallation(gateway);
    for (let call = 0; call < 3; call += 1) {
      await gateway.client.post('/mcp/invoke', read, { key: first.key, idem: null });
    }
    expect((await gateway.client.post('/mcp/invoke', read, { key: first.key, idem: null })).status).toBe(429);
    const other = await gateway.client.post('/mcp/invoke', read, { key: second.key, idem: null });
    expect(other.status).toBe(200);
    expect(parseRateLimitField(other.headers.get('ratelimit')).params.r).toBe(2);
  });

  it('a dry_run consumes nothing and a refused key carries no RateLimit headers', async () => {
    const { key } = await approvedInstallation(gateway);
    for (let call = 0; call < 5; call += 1) {
      const dry = await gateway.client.post('/mcp/dry_run', read, { key, idem: null });
      expect(dry.status).toBe(200);
    }
    const first = await gateway.client.post('/mcp/invoke', read, { key, idem: null });
    expect(parseRateLimitField(first.headers.get('ratelimit')).params.r).toBe(2);
    const anonymous = await gateway.client.post('/mcp/invoke', read, { idem: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('ratelimit')).toBeNull();
  });
});

describe('rate-limit configuration', () => {
  it('reads the per-minute limits and refuses a bad value naming the variable', () => {
    const config = loadConfig({ RATE_LIMIT_PER_INSTALLATION_PER_MINUTE: '90' });
    expect(config.rateLimitPerInstallationPerMinute).toBe(90);
    expect(config.rateLimitPerCapabilityPerMinute).toBe(600);
    for (const bad of ['0', 'ten', '-1', '1000000']) {
      expect(() => loadConfig({ RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ RATE_LIMIT_PER_CAPABILITY_PER_MINUTE: 'ten' })).toThrow(
      /RATE_LIMIT_PER_CAPABILITY_PER_MINUTE must be an integer from 1 to 999999/,
    );
  });
});
