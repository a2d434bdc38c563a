// The installation_key guard alone: pass, unauthenticated, identical invalid answers, expiry,
// revocation and bootstrap keys.
import { describe, expect, it } from 'vitest';
import { generateApiKey, installationKeyGuard } from '../src/index.js';
import { context, createWorld, installationId, organizationId } from './fixtures.js';

describe('installation_key guard', () => {
  const setup = () => {
    const world = createWorld();
    const guard = installationKeyGuard({ keys: world.keys, clock: world.clock });
    const check = (authorization: string | undefined) => guard.check(context({ authorization }, {}));
    return { ...world, guard, check };
  };

  it('passes a valid key and adds the principal', async () => {
    const { check, token, keyRecord } = setup();
    const decision = await check(`Bearer ${token}`);
    expect(decision).toEqual({
      outcome: 'pass',
      facts: {
        principal: {
          key_id: keyRecord.key_id,
          key_prefix: keyRecord.prefix,
          kind: 'installation',
          installation_id: installationId,
          organization_id: organizationId,
          scopes: ['documents:write', 'core:read', 'core:write'],
        },
      },
    });
  });

  it('answers 401 unauthenticated without a bearer key', async () => {
    const { check } = setup();
    expect(await check(undefined)).toMatchObject({ outcome: 'deny', code: 'unauthenticated' });
    expect(await check('Basic abc')).toMatchObject({ outcome: 'deny', code: 'unauthenticated' });
  });

  it('gives a wrong secret, an unknown prefix and a malformed key the identical answer', async () => {
    const world = createWorld();
    const presented = generateApiKey();
    const stored = generateApiKey();
    // The presented key's prefix exists, but with another secret's hash: possession is not proven.
    const keys = {
      findByPrefix: (prefix: string) =>
        prefix === presented.prefix ? { ...world.keyRecord, prefix, hash: stored.hash } : undefined,
    };
    const guard = installationKeyGuard({ keys, clock: world.clock });
    const check = (authorization: string) => guard.check(context({ authorization }, {}));
    const wrongSecret = await check(`Bearer ${presented.token}`);
    const unknownPrefix = await check(`Bearer ${generateApiKey().token}`);
    const badChecksum = await check(
      `Bearer ${presented.token.slice(0, -1)}${presented.token.endsWith('a') ? 'b' : 'a'}`,
    );
    const malformed = await check('Bearer agw_ak_short.x');
    expect(wrongSecret).toMatchObject({ outcome: 'deny', code: 'invalid_api_key' });
    expect(unknownPrefix).toEqual(wrongSecret);
    expect(badChecksum).toEqual(wrongSecret);
    expect(malformed).toEqual(wrongSecret);
  });

  it('tells expired and revoked apart only for the real key', async () => {
    const { check, token, clock, keys, keyRecord } = setup();
    clock.set('2027-01-01T00:00:00.000Z');
    expect(await check(`Bearer ${token}`)).toMatchObject({ outcome: 'deny', code: 'api_key_expired' });
    keys.revoke(keyRecord.key_id, '2026-12-01T00:00:00.000Z');
    expect(await check(`Bearer ${token}`)).toMatchObject({ outcome: 'deny', code: 'api_key_revoked' });
  });

  it('refuses a bootstrap key outside /organizations and accepts it where allowed', async () => {
    const world = createWorld();
    const { token } = world.keys.issue({
      installation_id: installationId,
      organization_id: organizationId,
      scopes: ['platform:bootstrap'],
      kind: 'bootstrap',
    });
    const invoke = installationKeyGuard({ keys: world.keys, clock: world.clock });
    const organizations = installationKeyGuard({
      keys: world.keys,
      clock: world.clock,
      acceptKinds: ['bootstrap'],
    });
    const ctx = context({ authorization: `Bearer ${token}` }, {});
    expect(await invoke.check(ctx)).toMatchObject({ outcome: 'deny', code: 'forbidden' });
    expect(await organizations.check(ctx)).toMatchObject({ outcome: 'pass' });
  });

  it('validates its options at construction', () => {
    expect(() => installationKeyGuard({} as never)).toThrow('KeyStore');
  });
});
