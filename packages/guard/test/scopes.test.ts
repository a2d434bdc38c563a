// The scopes guard alone, on its pass and deny paths.
import { describe, expect, it } from 'vitest';
import { scopesGuard } from '../src/index.js';
import { context, paymentCapability } from './fixtures.js';

describe('scopes guard', () => {
  it('passes when the key holds every scope of the capability', () => {
    expect(scopesGuard().check(context())).toEqual({ outcome: 'pass' });
  });

  it('answers 403 scope_missing listing each missing scope', () => {
    const decision = scopesGuard().check(
      context({ capability: { ...paymentCapability, scopes: ['core:write', 'x:y'] } }),
    );
    expect(decision).toMatchObject({
      outcome: 'deny',
      code: 'scope_missing',
      details: [{ scope: 'core:write' }, { scope: 'x:y' }],
    });
  });
});
