import type { Admission, Principal } from '@agw/guard';

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers, draft-08+ structured-field
 * syntax) from the policy guard's tightest bucket: `RateLimit-Policy: "<policy>";q=<limit>;w=<window>`
 * and `RateLimit: "<policy>";r=<remaining>;t=<seconds until reset>`. A 429 carries `r=0` and `t` equal
 * to its `Retry-After`. Runs stopped before `policy` consumed no bucket and carry none.
 */
export function rateLimitHeaders(admission: Admission<Principal>): Record<string, string> {
  let fact = admission.facts.rateLimit;
  if (admission.outcome === 'deny' && admission.decision.code === 'rate_limited') {
    const detail = admission.decision.details?.[0] as
      | { policy?: string; limit?: number; window_seconds?: number }
      | undefined;
    if (detail?.policy === undefined || detail.limit === undefined || detail.window_seconds === undefined) {
      return {};
    }
    fact = {
      policy: detail.policy,
      limit: detail.limit,
      remaining: 0,
      reset_seconds: admission.decision.retryAfterSeconds ?? detail.window_seconds,
      window_seconds: detail.window_seconds,
    };
  }
  if (fact === undefined) return {};
  return {
    'RateLimit-Policy': `"${fact.policy}";q=${fact.limit};w=${fact.window_seconds}`,
    RateLimit: `"${fact.policy}";r=${fact.remaining};t=${fact.reset_seconds}`,
  };
}
