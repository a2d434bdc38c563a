/**
 * Pins how the agent code is found in a raw mail: the Subject must carry `Ref: <correlation_id>` and a
 * standalone body line must match `code_regex`, across the encodings a mailer uses (7bit, quoted-printable,
 * base64, multipart, HTML only, RFC 2047 subjects). Pure functions, no IMAP.
 */
import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, findOtpInMessage } from '../src/imap/index.js';
import { agentDelivery } from './fixtures.js';

const { extraction } = agentDelivery('c0ffee42');

function mail(headers: string[], body: string): string {
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

const plainMail = mail(
  [
    'From: gateway@example.com',
    'To: agent@example.com',
    'Subject: Your agent code (Ref: c0ffee42)',
    'Content-Type: text/plain; charset=utf-8',
  ],
  'Hello,\r\n\r\nCode: 771204\r\n\r\nIt expires in 15 minutes.\r\n',
);

describe('findOtpInMessage', () => {
  it('reads the code from a plain text mail with CRLF line ends, from a string or bytes', () => {
    expect(findOtpInMessage(plainMail, extraction)).toBe('771204');
    expect(findOtpInMessage(new TextEncoder().encode(plainMail), extraction)).toBe('771204');
  });

  it('ignores a mail whose subject carries another correlation id', () => {
    expect(findOtpInMessage(plainMail.replace('c0ffee42', 'deadbeef'), extraction)).toBeUndefined();
  });

  it('needs a standalone line: "Code:" inside a sentence does not count', () => {
    const inline = plainMail.replace('Code: 771204', 'Your Code: 771204 is here');
    expect(findOtpInMessage(inline, extraction)).toBeUndefined();
  });

  it('decodes quoted-printable bodies with soft line breaks', () => {
    const qp = mail(
      [
        'Subject: =?UTF-8?Q?Ihr_Agent-Code_=E2=80=93_Ref:_c0ffee42?=',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
      ],
      'Gr=C3=BC=C3=9Fe,\r\n\r\nCode: 77=\r\n1204\r\n',
    );
    expect(findOtpInMessage(qp, extraction)).toBe('771204');
  });

  it('reads the text/plain part of multipart/alternative with a base64 body', () => {
    const text = btoa('Hi\r\nCode: 123456\r\nBye\r\n');
    const multipart = mail(
      [
        'Subject: Agent code Ref: c0ffee42',
        'MIME-Version: 1.0',
        'Content-Type: multipart/alternative; boundary="b1"',
      ],
      [
        'preamble',
        '--b1',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: base64',
        '',
        text,
        '--b1',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p>Code: 999999</p>',
        '--b1--',
        '',
      ].join('\r\n'),
    );
    expect(findOtpInMessage(multipart, extraction)).toBe('123456');
  });

  it('falls back to the text of an HTML-only mail', () => {
    const html = mail(
      ['Subject: Ref: c0ffee42', 'Content-Type: text/html; charset=utf-8'],
      '<html><body><p>Hello</p><p>Code: 654321</p></body></html>',
    );
    expect(findOtpInMessage(html, extraction)).toBe('654321');
  });

  it('uses the code_regex the gateway sent, not a built-in one', () => {
    const letters = plainMail.replace('Code: 771204', 'Code: AB-12');
    expect(findOtpInMessage(letters, extraction)).toBeUndefined();
    expect(
      findOtpInMessage(letters, { ...extraction, code_regex: '^Code: (?<otp>[A-Z]{2}-[0-9]{2})$' }),
    ).toBe('AB-12');
  });
});

describe('decodeHeaderValue', () => {
  it('decodes Q and B encoded words and joins adjacent ones', () => {
    expect(decodeHeaderValue('=?utf-8?B?UmVmOiA=?= =?utf-8?Q?c0ffee42?=')).toBe('Ref: c0ffee42');
    expect(decodeHeaderValue('plain Ref: x')).toBe('plain Ref: x');
  });
});
