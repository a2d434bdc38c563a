import { describe, expect, it } from 'vitest';
import { isDependencyFailure } from '../src/http/gateway-error.js';
import { faultCode } from '../src/invoke/refusal.js';

// The driver errors PostgreSQL going away produced under load (tests/reliability/postgres-outage.test.ts):
// each must answer 503 `dependency_unavailable` (retryable), never 500 `internal_error`.
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('a database that went away is a dependency failure, not an internal error', () => {
  it('knex reporting the failed ROLLBACK of a transaction whose connection died', () => {
    expect(
      isDependencyFailure(
        pgError('ROLLBACK - Client has encountered a connection error and is not queryable'),
      ),
    ).toBe(true);
  });

  it('a guard whose query hit a restarting server answers dependency_unavailable', () => {
    const starting = pgError('the database system is not yet accepting connections', '57P03');
    expect(faultCode({ code: 'internal_error', error: starting })).toBe('dependency_unavailable');
    expect(
      faultCode({ code: 'internal_error', error: pgError('connect ECONNREFUSED', 'ECONNREFUSED') }),
    ).toBe('dependency_unavailable');
  });

  it("a pooled connection not had in time (pg-pool's wait, the embedded session's wait)", () => {
    expect(isDependencyFailure(pgError('timeout exceeded when trying to connect'))).toBe(true);
    expect(
      isDependencyFailure(
        pgError('Timeout acquiring a connection: the embedded database was busy for 60000 ms'),
      ),
    ).toBe(true);
  });

  it('a bug stays an internal error', () => {
    expect(faultCode({ code: 'internal_error', error: new TypeError('x is undefined') })).toBe(
      'internal_error',
    );
    expect(isDependencyFailure(pgError('duplicate key value violates unique constraint', '23505'))).toBe(
      false,
    );
  });
});
