import type { Static, TSchema } from '@sinclair/typebox';

/** Risk level of a capability, lowest first. */
export type CapabilityRiskLevel = 'low' | 'medium' | 'high' | 'critical';

/** The data-only contract of one capability version: what guard, capabilities, gateway and client share. */
export interface CapabilityContract {
  /** e.g. `billing.document.create_draft`. */
  readonly id: string;
  readonly version: '1.0.0';
  readonly summary: string;
  /** First segment of the id. */
  readonly domain: string;
  readonly tags: readonly string[];
  readonly risk_level: CapabilityRiskLevel;
  /** Every scope the installation key needs. */
  readonly scopes: readonly string[];
  /** Exact decimal credits charged per successful invoke, e.g. `'0'` or `'0.50'`. */
  readonly cost_credits: string;
  /** True when invoke changes state: an idempotency key is then required. */
  readonly mutating: boolean;
  /**
   * The `params.operation` values of a mutating capability that only read (a `*.manage` list or get):
   * invoke runs them without an idempotency key (one that is sent is still honoured). Absent when
   * every operation mutates.
   */
  readonly read_operations?: readonly string[];
  readonly dry_run: 'supported' | 'required';
  readonly long_running?: boolean;
  /**
   * Hosts the handler reaches over the network (`api.example.com`, `*.example.com`). The egress guard
   * refuses the run unless every one is on the gateway's allow-list; the handler's `fetch` reaches no other.
   */
  readonly egress?: readonly string[];
  /** JSON Schema 2020-12 of `params` (no `$id`, self-contained). */
  readonly input_schema: TSchema;
  /** JSON Schema 2020-12 of `result` (no `$id`, self-contained). */
  readonly output_schema: TSchema;
}

/** A contract whose id and schemas keep their literal types, for the typed `CapabilityIO` map. */
export interface TypedCapabilityContract<Id extends string, I extends TSchema, O extends TSchema>
  extends CapabilityContract {
  readonly id: Id;
  readonly input_schema: I;
  readonly output_schema: O;
}

/** What `defineCapability` takes: a contract without `domain` (derived from the id). */
export type CapabilityDefinition<Id extends string, I extends TSchema, O extends TSchema> = Omit<
  TypedCapabilityContract<Id, I, O>,
  'domain'
>;

/** Declares a capability contract (domain = first id segment), keeping the literal id and schema types. */
export function defineCapability<Id extends string, I extends TSchema, O extends TSchema>(
  definition: CapabilityDefinition<Id, I, O>,
): TypedCapabilityContract<Id, I, O> {
  const domain = definition.id.split('.')[0] ?? '';
  return Object.freeze({ ...definition, domain });
}

/** Input and output types of one contract. */
export type CapabilityIOOf<C> =
  C extends TypedCapabilityContract<string, infer I, infer O>
    ? { input: Static<I>; output: Static<O> }
    : never;
