/** Pins the runtime export names of `@agw/client` and `@agw/client/imap` (types are pinned by tsc). */
import { expect, it } from 'vitest';
import * as imap from '../src/imap/index.js';
import * as client from '../src/index.js';

it('exports exactly these runtime values', () => {
  expect(Object.keys(client).sort()).toEqual([
    'APPROVAL_POLLING',
    'BudgetDeniedError',
    'ConnectionError',
    'DEFAULT_INVOCATION_POLL_SECONDS',
    'DryRunInvalidError',
    'GatewayError',
    'HandOverToHumanError',
    'InvocationTimeoutError',
    'QuoteNotIssuedError',
    'RegistrationReplayedError',
    'createClient',
    'newIdempotencyKey',
  ]);
  expect(Object.keys(imap).sort()).toEqual([
    'MailboxOtpTimeoutError',
    'createMailboxOtpReader',
    'findOtpInMessage',
    'readAgentOtpFromMailbox',
    'readMail',
  ]);
  expect(client.APPROVAL_POLLING).toEqual({
    firstPollAfterMs: 30_000,
    minIntervalMs: 60_000,
    giveUpAfterMs: 900_000,
  });
});
