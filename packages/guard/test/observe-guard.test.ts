// The chain's observer hook (what the gateway's tracing spans hang on): it wraps every check that runs,
// in order, sees each decision, and whatever scope it opens around `check` is the one the check runs in.
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { createGuardChain, defineGuard, GuardDenied, type GuardObserver } from '../src/index.js';
import { request } from './fixtures.js';

describe('observeGuard', () => {
  it('wraps each check that runs, sees its decision, and the check runs inside the wrapper', async () => {
    const scope = new AsyncLocalStorage<string>();
    const seen: string[] = [];
    const insideChecks: (string | undefined)[] = [];
    const observeGuard: GuardObserver = (guard, context, check) =>
      scope.run(`span:${guard}`, () => {
        const decided = check();
        const record = <D extends { outcome: string; code?: string }>(decision: D): D => {
          seen.push(`${guard} ${context.request.capability.id} ${decision.outcome} ${decision.code ?? ''}`);
          return decision;
        };
        return decided instanceof Promise ? decided.then(record) : record(decided);
      });
    const chain = createGuardChain(
      [
        defineGuard({
          name: 'installation_key',
          check: () => {
            insideChecks.push(scope.getStore());
            return { outcome: 'pass' };
          },
        }),
        defineGuard({
          name: 'scopes',
          check: async () => {
            await Promise.resolve();
            insideChecks.push(scope.getStore());
            throw new GuardDenied({ code: 'scope_missing', message: 'no' });
          },
        }),
        defineGuard({ name: 'schema', check: () => ({ outcome: 'pass' }) }),
      ],
      { observeGuard },
    );

    const admission = await chain.admit(request());

    expect(admission.outcome).toBe('deny');
    const id = request().capability.id;
    // schema never ran: a refused run stops at scopes, and the observer saw only what ran.
    expect(seen).toEqual([`installation_key ${id} pass `, `scopes ${id} deny scope_missing`]);
    expect(insideChecks).toEqual(['span:installation_key', 'span:scopes']);
  });
});
