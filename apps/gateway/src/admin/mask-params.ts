/**
 * A run's params as the operator reads them: one labelled row per leaf value, secrets masked. Pure, so
 * the console and (later) the CLI show the same thing.
 *
 * - A field whose name says it holds a credential (key, token, secret, password, credential, pin,
 *   cvv) is masked whole: `••••••••`, its length not shown. So is any value that looks like one of
 *   this gateway's keys or approval tokens (`agw_ak_…`, `agw_ap_…`), whatever its field is called.
 * - An IBAN (a field named `iban`, or any value shaped like one) keeps its country, check digits and
 *   last four characters, enough to recognise the account: `DE89 •••• 3000`.
 * Everything else is shown as given. Nested objects and lists become dotted paths (`lines[0].amount`).
 */

/** One row of the table. */
export interface ParamRow {
  /** The value's path in the params, e.g. `iban`, `lines[0].amount`. */
  readonly label: string;
  /** What to show: the value as text, or its masked form. */
  readonly value: string;
  readonly masked: boolean;
  /**
   * Set on a masked row the operator may reveal (an audited POST shows its full value once); not on
   * this gateway's own keys and approval tokens, which are never shown after they were issued.
   */
  readonly revealable?: true;
}

/** Rows past this many are summarised in one last row (a page stays readable; the hash binds all). */
export const MAX_PARAM_ROWS = 200;
const FULL_MASK = '••••••••';
const CREDENTIAL_FIELD =
  /(secret|password|passwd|passphrase|token|credential|api_?key|private_?key|(^|_)key$|(^|_)pin$|cvv|cvc)/i;
const GATEWAY_SECRET = /^agw_(ak|ap)_/;
const IBAN_FIELD = /(^|_)iban$/i;
// Country code, two check digits, 11 to 30 letters or digits (ISO 13616 lengths run 15 to 34).
const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

/** Masks an IBAN to `DE89 •••• 3000`; a value too short to keep anything is masked whole. */
export function maskIban(value: string): string {
  const compact = value.replace(/\s+/g, '').toUpperCase();
  if (compact.length < 12) return FULL_MASK;
  return `${compact.slice(0, 4)} •••• ${compact.slice(-4)}`;
}

type Shown = Omit<ParamRow, 'label'>;

function maskedLeaf(name: string, value: unknown): Shown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && GATEWAY_SECRET.test(value)) return { value: FULL_MASK, masked: true };
  if (CREDENTIAL_FIELD.test(name)) return { value: FULL_MASK, masked: true, revealable: true };
  if (typeof value === 'string') {
    const compact = value.replace(/\s+/g, '').toUpperCase();
    if (IBAN_FIELD.test(name) || IBAN_SHAPE.test(compact))
      return { value: maskIban(value), masked: true, revealable: true };
  }
  return { value: text, masked: false };
}

/** The rows of `params` (an object, normally); at most {@link MAX_PARAM_ROWS}, then a summary row. */
export function maskParams(params: unknown): ParamRow[] {
  return walkParams(params).map(({ raw: _raw, ...row }) => row);
}

/**
 * The full text of the masked row `label` of `params`, for an explicit (audited) reveal; undefined when
 * there is no such row, it is not masked, or it is not {@link ParamRow.revealable}.
 */
export function revealParam(params: unknown, label: string): string | undefined {
  const row = walkParams(params).find((candidate) => candidate.label === label);
  return row?.revealable ? row.raw : undefined;
}

function walkParams(params: unknown): Array<ParamRow & { raw: string }> {
  const rows: Array<ParamRow & { raw: string }> = [];
  let hidden = 0;
  const walk = (value: unknown, path: string, name: string) => {
    if (value !== null && typeof value === 'object') {
      const entries = Array.isArray(value)
        ? value.map((item, index) => [`${path}[${index}]`, name, item] as const)
        : Object.entries(value).map(
            ([key, item]) => [path === '' ? key : `${path}.${key}`, key, item] as const,
          );
      // A credential field's object (e.g. `credentials: { user, pass }`) is masked whole.
      if (name !== '' && CREDENTIAL_FIELD.test(name))
        return push(path, { value: FULL_MASK, masked: true, revealable: true }, value);
      if (entries.length === 0)
        return push(path || '(params)', { value: Array.isArray(value) ? '[]' : '{}', masked: false }, value);
      for (const [childPath, childName, item] of entries) walk(item, childPath, childName);
      return;
    }
    push(path || '(params)', maskedLeaf(name, value), value);
  };
  const push = (label: string, shown: Shown, value: unknown) => {
    const raw = typeof value === 'string' ? value : JSON.stringify(value);
    if (rows.length < MAX_PARAM_ROWS) rows.push({ label, ...shown, raw });
    else hidden += 1;
  };
  walk(params, '', '');
  if (hidden > 0) rows.push({ label: '…', value: `${hidden} more`, masked: false, raw: '' });
  return rows;
}
