import { deny, type Guard, pass } from '../guard.js';

/**
 * `scopes`: every scope the capability needs is among the key's scopes. Otherwise 403
 * `scope_missing` with one `details[]` entry `{ scope }` per missing scope.
 */
export function scopesGuard(): Guard {
  return {
    name: 'scopes',
    check({ request, facts }) {
      const granted = new Set(facts.principal?.scopes ?? []);
      const missing = request.capability.scopes.filter((scope) => !granted.has(scope));
      if (missing.length === 0) return pass();
      return deny('scope_missing', `The key lacks the scopes: ${missing.join(', ')}.`, {
        details: missing.map((scope) => ({ scope })),
      });
    },
  };
}
