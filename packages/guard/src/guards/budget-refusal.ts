import { type DenyDecision, deny, type GuardDetail } from '../guard.js';
import { formatCredits, parseCredits } from '../money.js';
import type { Clock, WalletSnapshot, WalletStore } from '../ports.js';

/** What {@link budgetRefusal} reads: the wallet and the clock the caps' windows are counted by. */
export interface BudgetPorts {
  readonly wallet: WalletStore;
  readonly clock: Clock;
}

const HOUR_MS = 3_600_000;

/**
 * The `budget_exceeded` refusal of a run that would cost `estimate` micro-credits, or undefined when the
 * balance and every cap allow it. Read-only: billing's check calls it, and so does `dry_run`, which must
 * refuse what invoke would refuse. When every broken cap lifts at a known time (a daily, monthly or
 * burn-rate cap the estimate alone fits in), the refusal names the wait in `retryAfterSeconds` (the
 * envelope then says `retryable: true`); a balance or task cap never lifts by waiting, so a refusal
 * that breaks one names no time.
 */
export async function budgetRefusal(
  ports: BudgetPorts,
  organizationId: string,
  estimate: bigint,
  options: { readonly snapshot?: WalletSnapshot | undefined; readonly unit?: unknown } = {},
): Promise<DenyDecision | undefined> {
  const now = ports.clock.now();
  const snapshot = options.snapshot ?? (await ports.wallet.getSnapshot(organizationId, now, options.unit));
  const broken = capsBrokenBy(snapshot, estimate);
  if (broken.length === 0) return undefined;
  const details = capDetails(broken, estimate);
  const message = `This run (${formatCredits(estimate)} credits) would exceed the ${String(broken[0]?.cap)}.`;
  const liftsAt = await capsLiftAt(ports, snapshot.organization_id, broken, estimate, now, options.unit);
  if (liftsAt === undefined) return deny('budget_exceeded', message, { details });
  const retryAfterSeconds = Math.max(1, Math.ceil((liftsAt.getTime() - now.getTime()) / 1000));
  return deny('budget_exceeded', `${message} It lifts at ${liftsAt.toISOString()}.`, {
    details,
    retryAfterSeconds,
    hint: `A budget cap resets at ${liftsAt.toISOString()}: retry after retry_after_seconds, or ask the operator to raise the cap.`,
  });
}

/** A cap the estimate would break: its limit and what its window has spent, in micro-credits. */
interface BrokenCap {
  readonly cap: string;
  readonly limit: bigint;
  readonly spent: bigint;
}

/** Every cap the estimate would break, with its limit and what was spent (the refusal's details). */
export function brokenCaps(snapshot: WalletSnapshot, estimate: bigint): GuardDetail[] {
  return capDetails(capsBrokenBy(snapshot, estimate), estimate);
}

function capsBrokenBy(snapshot: WalletSnapshot, estimate: bigint): BrokenCap[] {
  const { policy, spent } = snapshot;
  const checks: Array<{ cap: string; limit: string | null; spent: string }> = [
    { cap: 'balance', limit: snapshot.balance_credits, spent: '0' },
    { cap: 'task_cap', limit: policy.task_cap_credits, spent: '0' },
    { cap: 'daily_cap', limit: policy.daily_cap_credits, spent: spent.today_credits },
    { cap: 'monthly_cap', limit: policy.monthly_cap_credits, spent: spent.month_credits },
    { cap: 'burn_rate_hourly_cap', limit: policy.burn_rate_hourly_cap_credits, spent: spent.hour_credits },
  ];
  const broken: BrokenCap[] = [];
  for (const check of checks) {
    if (check.limit === null) continue;
    const cap = { cap: check.cap, limit: parseCredits(check.limit), spent: parseCredits(check.spent) };
    if (cap.spent + estimate > cap.limit) broken.push(cap);
  }
  return broken;
}

function capDetails(broken: readonly BrokenCap[], estimate: bigint): GuardDetail[] {
  const estimated_cost_credits = formatCredits(estimate);
  return broken.map((cap) => ({
    cap: cap.cap,
    limit_credits: formatCredits(cap.limit),
    spent_credits: formatCredits(cap.spent),
    estimated_cost_credits,
  }));
}

/**
 * When every broken cap allows the run again, or undefined when one never does by waiting (the balance,
 * the task cap, or an estimate larger than the cap itself). The windows are the wallet's: the UTC day,
 * the UTC month, and the rolling hour, whose spend ages out charge by charge.
 */
async function capsLiftAt(
  ports: BudgetPorts,
  organizationId: string,
  broken: readonly BrokenCap[],
  estimate: bigint,
  now: Date,
  unit: unknown,
): Promise<Date | undefined> {
  let latest = now;
  for (const { cap, limit, spent } of broken) {
    if (estimate > limit) return undefined;
    let liftsAt: Date | undefined;
    if (cap === 'daily_cap') {
      liftsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    } else if (cap === 'monthly_cap') {
      liftsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    } else if (cap === 'burn_rate_hourly_cap') {
      // This much of the hour's spend must age out before the estimate fits under the cap again.
      const excess = spent + estimate - limit;
      liftsAt = await hourWindowReleases(ports, organizationId, now, excess, unit);
    }
    if (liftsAt === undefined) return undefined;
    if (liftsAt > latest) latest = liftsAt;
  }
  return latest;
}

/**
 * When `excess` micro-credits of the rolling hour's spend will have aged out: the wallet's own answer
 * when it can tell, else the window's length (by then every charge counted now has left it).
 */
async function hourWindowReleases(
  ports: BudgetPorts,
  organizationId: string,
  now: Date,
  excess: bigint,
  unit: unknown,
): Promise<Date | undefined> {
  if (ports.wallet.hourSpendReleasedAt === undefined) return new Date(now.getTime() + HOUR_MS);
  const at = await ports.wallet.hourSpendReleasedAt(organizationId, now, formatCredits(excess), unit);
  return at ?? undefined;
}
