/** Where a command writes: human output to stdout, diagnostics to stderr. */
export interface CommandIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** True when stdout is a terminal: colour is used only then. */
  readonly isTTY?: boolean;
  /** Raw bytes to stdout (`agw invoke --out -`). */
  readonly stdoutBytes?: (bytes: Uint8Array) => void;
}

/** The process's real streams. */
export const processIO: CommandIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  stdoutBytes: (bytes) => process.stdout.write(bytes),
};

/** A failure that ends the CLI with `exitCode` after printing `message` (no stack). */
export class ExitError extends Error {
  override readonly name = 'ExitError';
  readonly exitCode: number;

  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Exit code for a usage error or an invalid configuration (flag, environment variable, key file). */
export const EXIT_CONFIG = 2;

/**
 * The CLI's exit codes (documented in the README):
 * 0 ok · 1 unexpected failure · 2 usage or configuration · 3 authentication/authorization (401/403) ·
 * 4 precondition or conflict (409/412) · 5 any other gateway error, or the gateway unreachable.
 */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: EXIT_CONFIG,
  auth: 3,
  conflict: 4,
  gateway: 5,
} as const;
