// Proves the README example runs as written: examples/embed.ts is imported and executed.
import { describe, expect, it } from 'vitest';
import { main } from '../examples/embed.js';

describe('README example', () => {
  it('charges a valid invoke once and refuses invalid params and a wrong key, each with an audit_id', async () => {
    const [ok, invalid, wrongKey, balance] = await main();
    expect(ok).toMatch(
      /^200 \{"status":"succeeded","result":\{"greeting":"Hello, Ada!","installation":"inst-1"\},"audit_id":"[0-9a-f-]{36}","cost":\{"credits":"0.25"\}\}$/,
    );
    expect(invalid).toMatch(/^400 \{"error":\{"code":"validation_failed",.*"audit_id":"[0-9a-f-]{36}"\}\}$/);
    expect(wrongKey).toMatch(/^401 \{"error":\{"code":"invalid_api_key",.*"audit_id":"[0-9a-f-]{36}"\}\}$/);
    expect(balance).toBe('balance 0.75');
  });
});
