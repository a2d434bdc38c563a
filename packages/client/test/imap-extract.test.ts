/**
 * Pins how the agent code is found in a raw mail: the Subject must carry `Ref: <correlation_id>` and a
 * standalone body line must match `code_regex`, across the encodings a mailer uses (7bit, quoted-printable,
 * base64, multipart, HTML only, RFC 2047 subjects, RFC 2231 parameters, attachments). No IMAP.
 */
import { describe, expect, it } from 'vitest';
import { findOtpInMessage, readMail } from '../src/imap/index.js';
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
  it('reads the code from a plain text mail with CRLF line ends, from a string or bytes', async () => {
    expect(await findOtpInMessage(plainMail, extraction)).toBe('771204');
    expect(await findOtpInMessage(new TextEncoder().encode(plainMail), extraction)).toBe('771204');
  });

  it('ignores a mail whose subject carries another correlation id', async () => {
    expect(await findOtpInMessage(plainMail.replace('c0ffee42', 'deadbeef'), extraction)).toBeUndefined();
  });

  it('needs a standalone line: "Code:" inside a sentence does not count', async () => {
    const inline = plainMail.replace('Code: 771204', 'Your Code: 771204 is here');
    expect(await findOtpInMessage(inline, extraction)).toBeUndefined();
  });

  it('decodes quoted-printable bodies with soft line breaks', async () => {
    const qp = mail(
      [
        'Subject: =?UTF-8?Q?Ihr_Agent-Code_=E2=80=93_Ref:_c0ffee42?=',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
      ],
      'Gr=C3=BC=C3=9Fe,\r\n\r\nCode: 77=\r\n1204\r\n',
    );
    expect(await findOtpInMessage(qp, extraction)).toBe('771204');
  });

  it('reads the text/plain part of multipart/alternative with a base64 body', async () => {
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
    expect(await findOtpInMessage(multipart, extraction)).toBe('123456');
  });

  it('falls back to the text of an HTML-only mail', async () => {
    const html = mail(
      ['Subject: Ref: c0ffee42', 'Content-Type: text/html; charset=utf-8'],
      '<html><body><p>Hello</p><p>Code: 654321</p></body></html>',
    );
    expect(await findOtpInMessage(html, extraction)).toBe('654321');
  });

  it('uses the code_regex the gateway sent, not a built-in one', async () => {
    const letters = plainMail.replace('Code: 771204', 'Code: AB-12');
    expect(await findOtpInMessage(letters, extraction)).toBeUndefined();
    expect(
      await findOtpInMessage(letters, { ...extraction, code_regex: '^Code: (?<otp>[A-Z]{2}-[0-9]{2})$' }),
    ).toBe('AB-12');
  });
});

describe('findOtpInMessage: MIME the hand-written parser missed (issue 27, finding 7)', () => {
  const subject = 'Subject: Ref: c0ffee42';

  it('reads a multipart mail whose quoted boundary holds a semicolon', async () => {
    const quoted = mail(
      [subject, 'Content-Type: multipart/alternative; boundary="=_a;b"'],
      ['--=_a;b', 'Content-Type: text/plain', '', 'Code: 123456', '--=_a;b--', ''].join('\r\n'),
    );
    expect(await findOtpInMessage(quoted, extraction)).toBe('123456');
  });

  it('reads a multipart mail whose boundary is split into RFC 2231 continuations', async () => {
    const continued = mail(
      [subject, 'Content-Type: multipart/alternative; boundary*0=ab; boundary*1=cd'],
      ['--abcd', 'Content-Type: text/plain', '', 'Code: 123456', '--abcd--', ''].join('\r\n'),
    );
    expect(await findOtpInMessage(continued, extraction)).toBe('123456');
  });

  it('takes the code from the message text, not from an attached text file', async () => {
    const attached = mail(
      [subject, 'Content-Type: multipart/mixed; boundary="b"'],
      [
        '--b',
        'Content-Type: text/plain; name="previous.txt"',
        'Content-Disposition: attachment; filename="previous.txt"',
        '',
        'Code: 999999',
        '--b',
        'Content-Type: text/plain',
        '',
        'Code: 123456',
        '--b--',
        '',
      ].join('\r\n'),
    );
    expect(await findOtpInMessage(attached, extraction)).toBe('123456');
  });
});

describe('readMail', () => {
  it('decodes RFC 2047 words in headers and keeps the date as the mail states it', async () => {
    const read = await readMail(
      mail(
        [
          'From: =?utf-8?Q?J=C3=BCrgen?= <gateway@example.com>',
          'To: agent@example.com',
          'Subject: =?utf-8?B?UmVmOiA=?= =?utf-8?Q?c0ffee42?=',
          'Date: Fri, 27 Nov 2026 09:00:00 +0000',
          'Message-ID: <m1@example.com>',
        ],
        'Line one\r\nLine two\r\n',
      ),
    );
    expect(read).toEqual({
      from: 'Jürgen <gateway@example.com>',
      to: 'agent@example.com',
      subject: 'Ref: c0ffee42',
      date: 'Fri, 27 Nov 2026 09:00:00 +0000',
      message_id: '<m1@example.com>',
      text: 'Line one\nLine two\n',
    });
  });
});
