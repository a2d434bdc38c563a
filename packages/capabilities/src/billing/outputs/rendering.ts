/** An output format of an issued document; each is archived on its own. */
export type OutputFormat = 'pdf' | 'xrechnung' | 'facturx';

/** One rule set a validation ran and what it found. */
export interface RuleSetReport {
  readonly name: string;
  readonly version: string;
  readonly fatal: number;
  readonly warnings: number;
}

/** An error-level finding: the rule id (`XSD` for the schema), its text, where in the XML. */
export interface ValidationError {
  readonly rule: string;
  readonly message: string;
  readonly location?: string;
}

/** What `validation` in an e-invoice answer says; stored with the archived bytes. */
export interface ValidationReport {
  readonly valid: boolean;
  readonly rule_sets: readonly RuleSetReport[];
  readonly warnings: readonly string[];
  readonly errors: readonly ValidationError[];
}

/** What is kept beside a rendering's bytes: its validation and the format's own answer fields. */
export interface RenderingDetails {
  readonly validation?: ValidationReport;
  readonly fields?: Readonly<Record<string, string>>;
}

/** A rendered file before or after archiving. */
export interface Rendering {
  readonly filename: string;
  readonly mimeType: string;
  readonly bytes: Buffer;
  readonly details: RenderingDetails;
}
