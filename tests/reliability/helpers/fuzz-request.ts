import { request } from 'node:http';
import fc from 'fast-check';
import { parseJsonOrUndefined } from '../../../apps/gateway/test/helpers/http.js';

/** The seed and case budget of one fuzz pass: fixed by default, FUZZ_SEED / FUZZ_RUNS override them. */
export interface FuzzBudget {
  readonly seed: number;
  /** Cases over all endpoints together. */
  readonly totalRuns: number;
}

export const DEFAULT_FUZZ_SEED = 20_261_124;
export const DEFAULT_FUZZ_RUNS = 10_100;

/** Reads FUZZ_SEED and FUZZ_RUNS (positive integers) or falls back to the defaults. */
export function fuzzBudget(env: NodeJS.ProcessEnv = process.env): FuzzBudget {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
    return value;
  };
  return { seed: read('FUZZ_SEED', DEFAULT_FUZZ_SEED), totalRuns: read('FUZZ_RUNS', DEFAULT_FUZZ_RUNS) };
}

/** How the body of one fuzz case is sent. */
export type BodyCase =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'raw'; readonly text: string; readonly label: string };

/** Raw bodies a parser may take: RFC 8259 lets a JSON parser ignore a leading byte order mark. */
export const RAW_MAY_PARSE: ReadonlySet<string> = new Set(['BOM']);

/** Raw bodies no endpoint may accept (except those in RAW_MAY_PARSE): malformed JSON, non-objects, huge, deeply nested, empty. */
export const rawBody: fc.Arbitrary<BodyCase> = fc
  .oneof(
    fc.constantFrom(
      ['empty', ''],
      ['whitespace', ' \n\t '],
      ['truncated', '{"a":'],
      ['open brace', '{'],
      ['trailing comma', '{"a":1,}'],
      ['single quotes', "{'a':1}"],
      ['two documents', '{}{}'],
      ['extra brace', '{"a":1}}'],
      ['bare word', 'nul'],
      ['null', 'null'],
      ['array', '[]'],
      ['string', '"text"'],
      ['number', '123'],
      ['huge exponent', '{"limit":1e400,"estimated_cost_credits":1e400}'],
      ['long number', `{"limit":${'9'.repeat(400)}}`],
      ['duplicate keys', '{"id":"core.org.current.get","id":"x.y.z","params":{}}'],
      ['proto pollution', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'],
      ['BOM', '\ufeff{}'],
      ['lone surrogate escape', '{"query":"\\ud800","otp":"\\udfff"}'],
      ['NUL escape', '{"query":"a\\u0000b","otp":"\\u0000"}'],
      ['invalid escape', '{"a":"\\x41"}'],
      ['control character', '{"a":"\u0001"}'],
      ['deep text nesting', `${'['.repeat(5000)}${']'.repeat(5000)}`],
      ['unbalanced nesting', '['.repeat(100_000)],
    ),
    fc.constant(['over the body limit', `{"pad":"${'x'.repeat(1_100_000)}"}`] as const),
    fc.string({ unit: 'binary', maxLength: 40 }).map((text) => ['random text', text] as const),
  )
  .map(([label, text]) => ({ kind: 'raw' as const, label, text }));

/** Content-Type header values; `valid` ones the JSON parser should take. */
export const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ value: 'application/json', valid: true }) },
  { weight: 1, arbitrary: fc.constant({ value: 'application/json; charset=utf-8', valid: true }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { value: undefined, valid: false },
      { value: 'text/plain', valid: false },
      { value: 'application/json; charset=latin1', valid: false },
      { value: 'application/x-www-form-urlencoded', valid: false },
      { value: 'multipart/form-data; boundary=x', valid: false },
      { value: 'application/xml', valid: false },
      { value: 'json', valid: false },
      { value: '', valid: false },
    ),
  },
);

/** Authorization header mutations; `current` stands for the endpoint's own valid credential. */
export type AuthCase =
  | 'current'
  | 'none'
  | 'empty bearer'
  | 'garbage bearer'
  | 'basic'
  | 'wrong prefix'
  | 'wrong secret'
  | 'revoked'
  | 'expired'
  | 'bootstrap'
  | 'installation'
  | 'operator'
  | 'double space'
  | 'trailing junk'
  | 'long';

export const authCase: fc.Arbitrary<AuthCase> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<AuthCase>('current') },
  {
    weight: 3,
    arbitrary: fc.constantFrom<AuthCase>(
      'none',
      'empty bearer',
      'garbage bearer',
      'basic',
      'wrong prefix',
      'wrong secret',
      'revoked',
      'expired',
      'bootstrap',
      'installation',
      'operator',
      'double space',
      'trailing junk',
      'long',
    ),
  },
);

/** Idempotency-Key header mutations (16 to 128 visible ASCII without `,` and `"` is valid). */
export const idempotencyCase = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.constant({ label: 'fresh', value: 'fresh' as string | undefined, valid: true }),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      { label: 'missing', value: undefined, valid: false },
      { label: 'empty', value: '', valid: false },
      { label: '15 chars', value: 'k'.repeat(15), valid: false },
      { label: '129 chars', value: 'k'.repeat(129), valid: false },
      { label: 'comma', value: 'abcdefgh,ijklmnop', valid: false },
      { label: 'inner quote', value: 'abcdefgh"ijklmnop', valid: false },
      { label: 'space', value: 'abcdefgh ijklmnop', valid: false },
      { label: 'latin1', value: 'abcdefgh\u00e9ijklmnop', valid: false },
      { label: '16 chars', value: 'fresh16', valid: true },
      { label: '128 chars', value: 'fresh128', valid: true },
      { label: 'quoted', value: 'fresh-quoted', valid: true },
    ),
  },
);

/** An HTTP answer with its body parsed when it is JSON. */
export interface FuzzAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  readonly json: unknown;
}

/** Sends one request; the body always goes as bytes, so fetch adds no Content-Type of its own. */
export async function send(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<FuzzAnswer> {
  const response = await fetch(url, {
    method: init.method,
    headers: init.headers,
    ...(init.body === undefined ? {} : { body: new TextEncoder().encode(init.body) }),
  });
  const text = await response.text();
  const json = parseJsonOrUndefined(text);
  return { status: response.status, contentType: response.headers.get('content-type'), text, json };
}

let nextAddress = 0;

/**
 * A loopback address of its own for each call (127.10.0.1, 127.10.0.2, …): the public routes limit each
 * client address (booking reads and bookings a minute, events a minute), so cases sent from one address
 * would mostly meet that limit instead of the route.
 */
export function freshLoopbackAddress(): string {
  nextAddress += 1;
  return `127.10.${(nextAddress >> 8) & 255}.${(nextAddress % 250) + 1}`;
}

/** {@link send} from `localAddress` (node:http: fetch cannot pick the address it sends from). */
export function sendFrom(
  localAddress: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method, headers: init.headers, localAddress, agent: false });
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const contentType = incoming.headers['content-type'] ?? null;
        resolve({ status: incoming.statusCode ?? 0, contentType, text, json: parseJsonOrUndefined(text) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(init.body === undefined ? undefined : Buffer.from(init.body, 'utf8'));
  });
}

/**
 * `JSON.stringify(value)`, without recursion: bodies nest 10 000 levels deep, more than the native
 * serializer manages on the stack the fuzzer's async property leaves it.
 */
export function jsonText(root: unknown): string | undefined {
  if (root === undefined) return undefined;
  const out: string[] = [];
  const stack: Array<{ text: string } | { value: unknown }> = [{ value: root }];
  while (stack.length > 0) {
    const frame = stack.pop() as { text: string } | { value: unknown };
    if ('text' in frame) {
      out.push(frame.text);
      continue;
    }
    const { value } = frame;
    if (value === null || typeof value !== 'object') {
      out.push(JSON.stringify(value) ?? 'null');
    } else if (Array.isArray(value)) {
      stack.push({ text: ']' });
      for (let index = value.length - 1; index >= 0; index -= 1) {
        stack.push({ value: value[index] });
        if (index > 0) stack.push({ text: ',' });
      }
      stack.push({ text: '[' });
    } else {
      const entries = Object.entries(value).filter(
        ([, item]) => item !== undefined && typeof item !== 'function',
      );
      stack.push({ text: '}' });
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index] as [string, unknown];
        stack.push({ value: item });
        stack.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
      }
      stack.push({ text: '{' });
    }
  }
  return out.join('');
}

/** A short, printable description of a case for failure messages. */
export function describeCase(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_key, item) =>
      typeof item === 'string' && item.length > 120 ? `${item.slice(0, 60)}…(${item.length} chars)` : item,
    );
  } catch {
    // Thousands of nesting levels overflow a replacer's recursion.
    text = (jsonText(value) ?? 'undefined').slice(0, 300);
  }
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}
