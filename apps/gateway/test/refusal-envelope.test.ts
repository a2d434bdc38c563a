// One mapping from a settled guard refusal to the wire error (refusalError) and one rendering of it
// (renderError), whichever step of the chain refused: admission, execute, or the deferral of a
// long-running invoke (which used to answer 500 where invoke answered 503).
import { createGuardChain, defineGuard, type GuardName } from '@agw/guard';
import { describe, expect, it } from 'vitest';
import { renderError } from '../src/http/error-envelope.js';
import { GatewayError } from '../src/http/gateway-error.js';
import { refusalError } from '../src/invoke/refusal.js';

const capability = {
  id: 'demo.thing.create',
  version: '1.0.0',
  risk_level: 'low',
  scopes: [],
  cost_credits: '0',
  mutating: true,
  input_schema: {},
} as const;

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** A chain whose `guard` throws `error` in its check; every other guard of the nine passes. */
function chainFailingAt(guard: GuardName, error: Error) {
  const names: GuardName[] = ['installation_key', 'policy', 'audit', 'billing', 'egress'];
  return createGuardChain(
    names.map((name) =>
      defineGuard({
        name,
        check: () => {
          if (name === guard) throw error;
          return { outcome: 'pass' };
        },
      }),
    ),
  );
}

describe('a settled refusal on the wire', () => {
  it('answers a denial with its own decision, retry_after_seconds and Retry-After together', async () => {
    const chain = createGuardChain([
      defineGuard({
        name: 'policy',
        check: () => ({
          outcome: 'deny',
          code: 'rate_limited',
          message: 'Too many invokes.',
          hint: 'Wait.',
          details: [{ policy: 'installation' }],
          retryAfterSeconds: 7,
        }),
      }),
    ]);
    const refusal = await chain.admit({ capability, params: {} });
    if (refusal.outcome === 'admitted') throw new Error('expected a refusal');
    const rendered = renderError(refusalError(refusal), 'audit-1');
    expect(rendered.status).toBe(429);
    expect(rendered.headers).toEqual({ 'Retry-After': '7' });
    expect(rendered.body.error).toMatchObject({
      code: 'rate_limited',
      message: 'Too many invokes.',
      hint: 'Wait.',
      details: [{ policy: 'installation' }],
      retry_after_seconds: 7,
      audit_id: 'audit-1',
    });
  });

  it('answers a guard that could not reach its database 503 at admission and when deferring a job', async () => {
    const admission = await chainFailingAt('policy', connectionRefused()).admit({ capability, params: {} });
    if (admission.outcome !== 'fault') throw new Error('expected a fault');
    const admitted = await chainFailingAt('billing', connectionRefused()).admit({ capability, params: {} });
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    const deferral = await admitted.defer();
    if (deferral.outcome !== 'fault') throw new Error('expected a fault');
    for (const refusal of [admission, deferral]) {
      const rendered = renderError(refusalError(refusal), 'audit-2');
      expect(rendered.status).toBe(503);
      expect(rendered.headers['Retry-After']).toBe('5');
      expect(rendered.body.error).toMatchObject({ code: 'dependency_unavailable', retry_after_seconds: 5 });
    }
  });

  it('answers any other fault 500 without internals, and keeps the error for the log', async () => {
    const bug = new TypeError('facts.principal is undefined');
    const admitted = await chainFailingAt('egress', bug).admit({ capability, params: {} });
    if (admitted.outcome !== 'admitted') throw new Error('expected an admitted run');
    const executed = await admitted.execute(() => 'never');
    if (executed.outcome !== 'fault') throw new Error('expected a fault');
    const error = refusalError(executed);
    expect(error).toMatchObject({ code: 'internal_error', message: 'An unexpected error occurred.' });
    expect(error.cause).toBe(bug);
    const rendered = renderError(error, 'audit-3');
    expect(rendered.status).toBe(500);
    expect(rendered.headers).toEqual({});
    expect(JSON.stringify(rendered.body)).not.toContain('principal');
  });

  it('keeps an error’s own headers beside Retry-After', () => {
    const rendered = renderError(
      new GatewayError('method_not_allowed', { message: 'Use POST.', headers: { Allow: 'POST' } }),
      'audit-4',
    );
    expect(rendered).toMatchObject({ status: 405, headers: { Allow: 'POST' } });
    expect(rendered.body.error.retry_after_seconds).toBeUndefined();
  });
});
