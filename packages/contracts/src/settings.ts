import {
  type Static,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  Type,
} from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Settings read from the environment, declared as schemas: one TypeBox object whose members are named
 * after their variables (`PORT`, `CALENDAR_BOOKINGS_PER_MINUTE`), each with a description, a default
 * (or a text saying what unset means) and its bounds. The gateway validates its own and every domain's
 * at start with ajv (strings coerced to integers and booleans, defaults filled in) and renders the
 * configuration table of its docs from the same schemas. No I/O: the environment is passed in.
 */

/** A settings schema: members named after their environment variables. */
export type SettingsSchema = TObject<TProperties>;

/** How a bad value is shown in the one-line error: as is, only its URL scheme, or not at all. */
export type SettingDisplay = 'value' | 'scheme' | 'hidden';

/** The annotations every setting carries beside its JSON Schema keywords. */
export interface SettingAnnotations {
  /** What the variable does, one sentence or two (the docs' table shows it). */
  readonly description: string;
  /** The allowed values in words, e.g. `a hostname or IP address`; derived for integers, booleans, enums. */
  readonly expectation?: string;
  /** What unset means when there is no constant default, e.g. `embedded PGlite under DATA_DIR`. */
  readonly defaultText?: string;
  /** How a bad value appears in the error (default `value`; URLs with passwords `scheme`, keys `hidden`). */
  readonly display?: SettingDisplay;
  /** Read case-insensitively (the value is lower-cased before validation). */
  readonly lowercase?: boolean;
}

// The annotations are not JSON Schema keywords; ajv's strict mode accepts them once declared.
const ANNOTATIONS = ['expectation', 'defaultText', 'display', 'lowercase'] as const;

type Annotated = TSchema & Partial<Record<(typeof ANNOTATIONS)[number], unknown>>;

/** A setting without a default is optional: unset, it is absent from the values (its `defaultText` says what that means). */
type Defaulted<T extends TSchema, O> = O extends { readonly default: unknown } ? T : TOptional<T>;

function defaulted<T extends TSchema, O extends { readonly default?: unknown }>(
  schema: T,
  options: O,
): Defaulted<T, O> {
  return (options.default === undefined ? Type.Optional(schema) : schema) as Defaulted<T, O>;
}

/** Options of {@link Setting.integer}. */
export interface IntegerSetting extends SettingAnnotations {
  readonly minimum: number;
  readonly maximum: number;
  readonly default?: number;
  /** A range inside the bounds that is refused (e.g. 1-99 of a timeout where 0 means off). */
  readonly excluding?: readonly [number, number];
}

/** Options of {@link Setting.string}. */
export interface StringSetting extends SettingAnnotations {
  readonly expectation: string;
  readonly pattern: string;
  readonly maxLength?: number;
  readonly default?: string;
}

/** Builders of the settings a schema holds. */
export const Setting = {
  /** A whole number within `minimum`..`maximum`. */
  integer<O extends IntegerSetting>(options: O) {
    const { excluding, ...rest } = options;
    const not =
      excluding === undefined
        ? {}
        : { not: { type: 'integer', minimum: excluding[0], maximum: excluding[1] } };
    return defaulted(Type.Integer({ ...rest, ...not }), options);
  },
  /** `true` or `false`. */
  boolean(options: SettingAnnotations & { readonly default: boolean }) {
    return Type.Boolean(options);
  },
  /** One of `values`. */
  oneOf<const V extends readonly [string, ...string[]]>(
    values: V,
    options: SettingAnnotations & { readonly default: V[number] },
  ) {
    return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
  },
  /** A string matching `pattern`; say what that means in `expectation`. */
  string<O extends StringSetting>(options: O) {
    return defaulted(Type.String(options), options);
  },
  /**
   * A URL with one of `protocols` and a host. A bad value is shown by its scheme only: the value may
   * hold a password.
   */
  url(
    options: Omit<SettingAnnotations, 'expectation' | 'display'> & {
      readonly protocols: readonly string[];
      readonly example: string;
    },
  ) {
    const { protocols, example, ...rest } = options;
    return Type.Optional(
      Type.String({
        ...rest,
        // The scheme, optional user information, then at least one character of a host.
        pattern: `^(${protocols.join('|')})://([^/?#\\s@]+@)?[^/?#\\s@:]`,
        expectation: `a ${protocols.map((protocol) => `${protocol}://`).join(' or ')} URL (e.g. ${example})`,
        display: 'scheme',
      }),
    );
  },
};

/** The settings schema of `properties` (each built with {@link Setting}). */
export function settingsSchema<P extends TProperties>(properties: P): TObject<P> {
  return Type.Object(properties, { additionalProperties: false });
}

/** A setting's value is invalid; the message is one line naming the variable, meant for the operator. */
export class SettingError extends Error {
  override readonly name: string = 'SettingError';
  /** The environment variable at fault. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}

/** The allowed values of `setting` in words, e.g. `an integer from 1 to 10000`. */
export function settingExpectation(setting: TSchema): string {
  const annotated = setting as Annotated;
  if (typeof annotated.expectation === 'string') return annotated.expectation;
  if (setting.type === 'integer') return `an integer from ${setting.minimum} to ${setting.maximum}`;
  if (setting.type === 'boolean') return 'true or false';
  if (Array.isArray(setting.enum)) return `one of ${setting.enum.join(', ')}`;
  throw new Error(`a setting of type ${String(setting.type)} needs an expectation`);
}

/** What an unset variable means, for the docs: the default value or the setting's own words. */
export function settingDefault(setting: TSchema): string | undefined {
  if (setting.default !== undefined) return String(setting.default);
  const text = (setting as Annotated).defaultText;
  return typeof text === 'string' ? text : undefined;
}

/** `raw` as the one-line error may show it. */
function shown(setting: TSchema, raw: string): string {
  const display = (setting as Annotated).display ?? 'value';
  if (display === 'hidden') return 'a value that is not shown';
  if (display === 'scheme') {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(raw)?.[0];
    return scheme === undefined ? 'a value without a scheme' : `a ${scheme} value`;
  }
  return JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
}

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<TSchema, ValidateFunction>();

function validatorOf(schema: SettingsSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    if (ajv === undefined) {
      // The first error is the one reported: one line, one variable.
      ajv = new Ajv2020({ strict: true, allErrors: false, coerceTypes: true, useDefaults: true });
      addFormats(ajv);
      ajv.addVocabulary([...ANNOTATIONS]);
    }
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * The values of `schema`'s variables in `env`, validated: a blank variable counts as unset, integers
 * and booleans are read from their text, unset ones get their default. Throws a {@link SettingError}
 * naming the first bad variable, e.g. `CALENDAR_BOOKINGS_PER_HOUR must be an integer from 1 to 10000
 * (got "abc")`.
 *
 * @example
 * const settings = readSettings(settingsSchema({ PORT: Setting.integer({ … }) }), process.env);
 */
export function readSettings<S extends SettingsSchema>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
): Static<S> {
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(schema.properties)) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') continue;
    values[name] = (setting as Annotated).lowercase === true ? raw.toLowerCase() : raw;
  }
  const validate = validatorOf(schema);
  if (!validate(values)) {
    const name = (validate.errors?.[0]?.instancePath ?? '').split('/')[1] ?? '';
    const setting = schema.properties[name];
    const raw = env[name]?.trim() ?? '';
    if (setting === undefined) throw new Error(`settings: no schema for ${name}`);
    throw new SettingError(
      name,
      `${name} must be ${settingExpectation(setting)} (got ${shown(setting, raw)})`,
    );
  }
  return values as Static<S>;
}
