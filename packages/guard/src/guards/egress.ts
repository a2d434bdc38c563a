import { GuardConfigError } from '../errors.js';
import { deny, type Guard, pass } from '../guard.js';
import { isHostAllowed } from '../hosts.js';
import type { EgressPolicy } from '../ports.js';

/** Options of {@link egressGuard}. */
export interface EgressGuardOptions {
  readonly policy: EgressPolicy;
}

/**
 * `egress`, the first of two checks: every host the capability declares must be on the allow-list,
 * else 403 `egress_denied` listing the refused hosts. Adds `egressHosts` (the declared hosts) to the
 * facts; hand them to {@link createEgressFetch}, which re-checks every request and redirect.
 */
export function egressGuard(options: EgressGuardOptions): Guard {
  if (typeof options?.policy?.allowedHosts !== 'function') {
    throw new GuardConfigError('egressGuard needs policy: EgressPolicy.');
  }
  const { policy } = options;

  return {
    name: 'egress',
    async check({ request, facts }) {
      const declared = request.capability.egress ?? [];
      if (declared.length === 0) return pass({ egressHosts: [] });
      const allowList = await policy.allowedHosts(facts.principal?.organization_id);
      const refused = declared.filter((host) => !isHostAllowed(host, allowList));
      if (refused.length === 0) return pass({ egressHosts: declared });
      return deny(
        'egress_denied',
        `The capability would reach hosts that are not allow-listed: ${refused.join(', ')}.`,
        {
          details: refused.map((host) => ({ host })),
        },
      );
    },
  };
}
