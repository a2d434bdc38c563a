// Settings read from the environment through their schema: text coerced, defaults filled, and one line
// naming the variable, the problem and the allowed range for a bad value (the URL's password and a
// secret never shown).
import { readSettings, Setting, SettingError, settingsSchema } from '@agw/contracts';
import { describe, expect, it } from 'vitest';

const schema = settingsSchema({
  BOOKINGS_PER_HOUR: Setting.integer({ minimum: 1, maximum: 10_000, default: 60, description: 'caps' }),
  TIMEOUT_MS: Setting.integer({
    minimum: 0,
    maximum: 600_000,
    excluding: [1, 99],
    default: 30_000,
    expectation: '0 or an integer from 100 to 600000',
    description: 'timeout',
  }),
  ALLOW: Setting.boolean({ default: false, description: 'allow' }),
  LEVEL: Setting.oneOf(['info', 'debug'], { default: 'info', lowercase: true, description: 'level' }),
  DATABASE_URL: Setting.url({ protocols: ['postgres'], example: 'postgres://h/db', description: 'db' }),
  KEY: Setting.string({
    pattern: '^[0-9a-f]{4}$',
    expectation: '4 hex digits',
    display: 'hidden',
    description: 'key',
  }),
});

function failure(env: Record<string, string>): SettingError {
  try {
    readSettings(schema, env);
  } catch (error) {
    if (error instanceof SettingError) return error;
    throw error;
  }
  throw new Error('expected readSettings to fail');
}

describe('readSettings', () => {
  it('fills the defaults and reads integers, booleans and case-insensitive names from their text', () => {
    expect(readSettings(schema, {})).toEqual({
      BOOKINGS_PER_HOUR: 60,
      TIMEOUT_MS: 30_000,
      ALLOW: false,
      LEVEL: 'info',
    });
    expect(
      readSettings(schema, {
        BOOKINGS_PER_HOUR: ' 7 ',
        TIMEOUT_MS: '0',
        ALLOW: 'true',
        LEVEL: 'DEBUG',
        KEY: '',
      }),
    ).toEqual({ BOOKINGS_PER_HOUR: 7, TIMEOUT_MS: 0, ALLOW: true, LEVEL: 'debug' });
  });

  it.each([
    [{ BOOKINGS_PER_HOUR: 'abc' }, 'BOOKINGS_PER_HOUR must be an integer from 1 to 10000 (got "abc")'],
    [{ BOOKINGS_PER_HOUR: '0' }, 'BOOKINGS_PER_HOUR must be an integer from 1 to 10000 (got "0")'],
    [{ BOOKINGS_PER_HOUR: '2.5' }, 'BOOKINGS_PER_HOUR must be an integer from 1 to 10000 (got "2.5")'],
    [{ TIMEOUT_MS: '50' }, 'TIMEOUT_MS must be 0 or an integer from 100 to 600000 (got "50")'],
    [{ ALLOW: 'yes' }, 'ALLOW must be true or false (got "yes")'],
    [{ LEVEL: 'loud' }, 'LEVEL must be one of info, debug (got "loud")'],
  ])('refuses %j in one line', (env, message) => {
    const error = failure(env);
    expect(error.variable).toBe(Object.keys(env)[0]);
    expect(error.message).toBe(message);
  });

  it('shows only the scheme of a bad URL and nothing of a bad secret', () => {
    const url = failure({ DATABASE_URL: 'mysql://agw:hunter2@db/agw' });
    expect(url.message).toBe(
      'DATABASE_URL must be a postgres:// URL (e.g. postgres://h/db) (got a mysql: value)',
    );
    expect(failure({ DATABASE_URL: 'postgres://' }).message).toContain('(got a postgres: value)');
    const key = failure({ KEY: 'hunter2' });
    expect(key.message).toBe('KEY must be 4 hex digits (got a value that is not shown)');
  });
});
