// The egress guard alone and the host matching it relies on.
import { describe, expect, it } from 'vitest';
import { createStaticEgressPolicy, egressGuard, isHostAllowed } from '../src/index.js';
import { context, uploadCapability } from './fixtures.js';

describe('egress guard', () => {
  const guard = egressGuard({
    policy: createStaticEgressPolicy(['api.example.com', '*.storage.example.net']),
  });
  const withHosts = (egress: string[]) => context({ capability: { ...uploadCapability, egress } });

  it('passes a capability whose declared hosts are all allow-listed', async () => {
    expect(await guard.check(withHosts(['API.example.com', 'eu.storage.example.net']))).toEqual({
      outcome: 'pass',
      facts: { egressHosts: ['API.example.com', 'eu.storage.example.net'] },
    });
    expect(await guard.check(context())).toEqual({ outcome: 'pass', facts: { egressHosts: [] } });
  });

  it('answers 403 egress_denied listing the hosts that are not allowed', async () => {
    expect(
      await guard.check(withHosts(['api.example.com', 'evil.example.org', 'storage.example.net'])),
    ).toMatchObject({
      outcome: 'deny',
      code: 'egress_denied',
      details: [{ host: 'evil.example.org' }, { host: 'storage.example.net' }],
    });
  });
});

describe('isHostAllowed', () => {
  it('matches exact hosts and subdomain wildcards only', () => {
    const allow = ['api.example.com', '*.example.net'];
    expect(isHostAllowed('api.example.com.', allow)).toBe(true);
    expect(isHostAllowed('a.b.example.net', allow)).toBe(true);
    expect(isHostAllowed('example.net', allow)).toBe(false);
    expect(isHostAllowed('badexample.net', allow)).toBe(false);
    expect(isHostAllowed('api.example.com.evil.org', allow)).toBe(false);
    expect(isHostAllowed('', allow)).toBe(false);
  });
});
