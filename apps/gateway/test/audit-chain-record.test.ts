// The chain hash writes the record's canonical JSON with its keys in order by hand (speed): it must be
// exactly the canonical JSON of the record, or rows sealed before and after would not verify alike.
import { canonicalJson, sha256Hex } from '@agw/guard';
import { describe, expect, it } from 'vitest';
import { chainHash, GENESIS_HASH, type StoredEvent } from '../src/audit-chain/record.js';

function generic(prevHash: string, seq: number, sealedAt: string, event: StoredEvent): string {
  const { details, http_status, ...columns } = event;
  const record = {
    seq,
    sealed_at: sealedAt,
    event: { ...columns, http_status: Number(http_status), details: JSON.parse(details) as unknown },
  };
  return sha256Hex(`${prevHash}${canonicalJson(record)}`);
}

const base: StoredEvent = {
  id: '42',
  audit_id: '0b7c9f7e-2a1d-4c3b-9e8f-1a2b3c4d5e6f',
  occurred_at: '2026-11-25T01:02:03.123456Z',
  request_id: 'req-1',
  actor: 'installation:6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  action: 'capability.invoke',
  outcome: 'succeeded',
  http_status: 200,
  details: JSON.stringify({
    trace: [{ guard: 'audit', phase: 'settle', outcome: 'pass', duration_ms: 0.012 }],
    target_id: 'core.org.current.get',
    user_agent: null,
    'z\u00e9': 'line\nbreak "quoted" \u2028',
    A: [1, 2.5, -0, 1e21, { b: true, a: null }],
  }),
};

describe('chainHash', () => {
  it('is the sha-256 of prev_hash and the canonical JSON of the record', () => {
    const events: StoredEvent[] = [
      base,
      { ...base, request_id: '', http_status: '503' as unknown as number, details: '{}' },
      { ...base, actor: 'anonymous', outcome: 'denied', details: '{"reason_code":"rate_limited"}' },
    ];
    for (const [index, event] of events.entries()) {
      const sealedAt = '2026-11-25T01:02:04.000001Z';
      expect(chainHash(GENESIS_HASH, index + 1, sealedAt, event)).toBe(
        generic(GENESIS_HASH, index + 1, sealedAt, event),
      );
    }
  });
});
