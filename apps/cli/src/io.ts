/** Where a command writes: human output to stdout, diagnostics to stderr. */
export interface CommandIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The process's real streams. */
export const processIO: CommandIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
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

/** Exit code for an invalid configuration (environment variable or flag). */
export const EXIT_CONFIG = 2;
