// The guard trace's stored form (src/ports/audit-trace.ts): one string per entry, read back as the
// entries the chain produced; rows written before keep their objects.
import type { TraceEntry } from '@agw/guard';
import { describe, expect, it } from 'vitest';
import { decodeTrace, encodeTrace } from '../src/ports/audit-trace.js';

describe('audit trace', () => {
  it('reads back every entry: a pass, a denial with its code, a shadowed denial, a settle fault', () => {
    const trace: TraceEntry[] = [
      { guard: 'installation_key', phase: 'check', outcome: 'pass', duration_ms: 0.171 },
      {
        guard: 'policy',
        phase: 'check',
        outcome: 'deny',
        code: 'rate_limited',
        duration_ms: 2,
        shadow: true,
      },
      { guard: 'billing', phase: 'check', outcome: 'deny', code: 'insufficient_funds', duration_ms: 0.081 },
      { guard: 'audit', phase: 'settle', outcome: 'fault', code: 'guard_fault', duration_ms: 0 },
    ];
    const stored = encodeTrace(trace);
    expect(stored[2]).toBe('billing check deny 0.081 insufficient_funds');
    expect(decodeTrace(JSON.parse(JSON.stringify(stored)))).toEqual(trace);
  });

  it('keeps the object entries of rows written before, and what is not a trace', () => {
    const old = [{ guard: 'schema', phase: 'check', outcome: 'pass', duration_ms: 0.2 }];
    expect(decodeTrace(old)).toEqual(old);
    expect(decodeTrace(null)).toBeNull();
  });
});
