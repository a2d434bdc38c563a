import { CommanderError } from 'commander';
import { EXIT, ExitError, processIO } from './io.js';
import { createProgram } from './program.js';

// The only place that sets the process's exit code.
async function main(): Promise<number> {
  const program = createProgram({ io: processIO, env: process.env });
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    // Commander has already printed the problem (or the help/version); its failures are usage errors.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof ExitError) {
      processIO.stderr(`agw: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') {
      // System errors (port in use, database unreachable) are explained by their message alone.
      processIO.stderr(`agw: ${error.message}\n`);
      return 1;
    }
    processIO.stderr(
      `agw: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

main().then((code) => process.exit(code));
