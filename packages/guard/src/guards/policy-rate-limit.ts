import { GuardConfigError } from '../errors.js';
import {
  type DenyDecision,
  deny,
  type GuardCapability,
  type Principal,
  type RateLimitFact,
} from '../guard.js';
import type { RateLimiter, RateLimitResult } from '../ports.js';

/** One bucket: at most `limit` invokes per `windowSeconds`. */
export interface RateLimitRule {
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The policy guard's buckets: one per installation, one per installation and capability. */
export interface RateLimits {
  readonly perInstallation?: RateLimitRule;
  readonly perCapability?: RateLimitRule;
}

/** @internal */
export function validateRateLimits(rateLimits: RateLimits): void {
  for (const [name, rule] of Object.entries(rateLimits)) {
    if (rule === undefined) continue;
    const { limit, windowSeconds } = rule as RateLimitRule;
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(windowSeconds) || windowSeconds < 1) {
      throw new GuardConfigError(`rateLimits.${name} needs a positive integer limit and windowSeconds.`);
    }
  }
}

/**
 * Consumes one point from each bucket. Keys are namespaced by organization and installation (security
 * rules 4.2.9). Both buckets are consumed at once (one round trip to a shared store instead of two);
 * the installation bucket's refusal is reported first. When one bucket refuses, the other's point is
 * already spent: acceptable, since a refused call is still a call.
 * @internal
 */
export async function consumeRateLimits(input: {
  readonly rateLimiter: RateLimiter;
  readonly rateLimits: RateLimits;
  readonly principal: Principal;
  readonly capability: GuardCapability;
}): Promise<{ readonly denied?: DenyDecision; readonly fact?: RateLimitFact }> {
  const { rateLimiter, rateLimits, principal, capability } = input;
  const base = `rl:${principal.organization_id}:${principal.installation_id}`;
  const buckets = [
    { policy: 'installation', key: `${base}:all`, rule: rateLimits.perInstallation },
    { policy: 'capability', key: `${base}:capability:${capability.id}`, rule: rateLimits.perCapability },
  ].filter((bucket): bucket is typeof bucket & { rule: RateLimitRule } => bucket.rule !== undefined);
  const results: RateLimitResult[] = await Promise.all(
    buckets.map(({ key, rule }) =>
      rateLimiter.consume({ key, limit: rule.limit, windowSeconds: rule.windowSeconds, cost: 1 }),
    ),
  );
  let tightest: RateLimitFact | undefined;
  for (const [index, { policy, rule }] of buckets.entries()) {
    const result = results[index] as RateLimitResult;
    const fact: RateLimitFact = {
      policy,
      limit: result.limit,
      remaining: result.remaining,
      reset_seconds: result.resetSeconds,
      window_seconds: rule.windowSeconds,
    };
    if (!result.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(result.retryAfterSeconds));
      return {
        denied: deny(
          'rate_limited',
          `Rate limit exceeded (${policy}: ${rule.limit} per ${rule.windowSeconds} s).`,
          {
            retryAfterSeconds,
            details: [{ policy, limit: rule.limit, window_seconds: rule.windowSeconds, remaining: 0 }],
          },
        ),
        fact: { ...fact, remaining: 0 },
      };
    }
    if (tightest === undefined || fact.remaining < tightest.remaining) tightest = fact;
  }
  return tightest === undefined ? {} : { fact: tightest };
}
