import { Command, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { EINVOICE_KINDS, einvoiceValidate } from './commands/einvoice.js';
import { migrate } from './commands/migrate.js';
import { type ServeEnvironment, serve } from './commands/serve.js';
import type { CommandIO } from './io.js';
import { registerAgentCommands } from './program-agent.js';
import { registerOperatorCommands } from './program-operator.js';
import { processStopSignal } from './stop-signal.js';

/** What the program needs from the process; tests pass their own. */
export interface ProgramContext {
  readonly io: CommandIO;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stopSignal?: () => ServeEnvironment['stopSignal'];
}

/** The CLI's version, from its package.json. */
export const CLI_VERSION: string = packageJson.version;

/** Builds the `agw` command tree. Only maps flags to the command functions' options. */
export function createProgram(context: ProgramContext): Command {
  const program = new Command('agw')
    .description('Agent Gateway command line: run the gateway, manage its database, and operate it.')
    .version(CLI_VERSION, '-v, --version', 'print the agw version')
    .configureOutput({ writeOut: context.io.stdout, writeErr: context.io.stderr })
    .exitOverride()
    .showHelpAfterError();
  program.addHelpText(
    'after',
    '\nExamples:\n  $ agw serve --port 8080\n  $ agw migrate\n  $ agw installations list --status pending\n  $ agw installations approve <id>\n  $ agw serve --help\n\nExit codes: 0 ok, 1 unexpected, 2 usage/config, 3 auth (401/403), 4 conflict/precondition (409/412), 5 other gateway error.',
  );

  program
    .command('serve')
    .description(
      'start the gateway HTTP server (runs pending migrations first) and write where it runs to $XDG_STATE_HOME/agw/serve.json for the other commands; stops cleanly on SIGTERM/SIGINT',
    )
    .option('-p, --port <port>', 'TCP port, 0 for a free one (env PORT, default 8080)')
    .option('-H, --host <host>', 'interface to bind (env HOST, default 127.0.0.1)')
    .option('-d, --data-dir <dir>', 'directory for embedded data (env DATA_DIR, default ./.data)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ agw serve\n  $ agw serve --port 9000 --data-dir /var/lib/agw\n  $ DATABASE_URL=postgres://agw@127.0.0.1:5432/agw REDIS_URL=redis://127.0.0.1:6379 agw serve --host 0.0.0.0',
    )
    .action((options: { port?: string; host?: string; dataDir?: string }) =>
      serve(options, {
        env: context.env,
        io: context.io,
        stopSignal: (context.stopSignal ?? processStopSignal)(),
      }),
    );

  program
    .command('migrate')
    .description(
      'apply pending database migrations (DATABASE_URL, or embedded PGlite under DATA_DIR) and print what ran',
    )
    .option('-d, --data-dir <dir>', 'directory for embedded data (env DATA_DIR, default ./.data)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ agw migrate\n  $ DATABASE_URL=postgres://agw@127.0.0.1:5432/agw agw migrate',
    )
    .action((options: { dataDir?: string }) => migrate(options, context.env, context.io));

  program
    .command('einvoice')
    .description('check e-invoice files with the official rules the gateway applies')
    .addHelpText('after', '\nExamples:\n  $ agw einvoice validate RE-2026-00001-xrechnung.xml')
    .command('validate <file>')
    .description(
      'check an XRechnung or Factur-X XML against its XSD and the official EN 16931 and XRechnung / Factur-X Schematron, offline',
    )
    .addOption(
      new Option('--as <kind>', 'what to check it as (default: detected from the XML)').choices(
        EINVOICE_KINDS,
      ),
    )
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ agw einvoice validate RE-2026-00001-xrechnung.xml\n  $ qpdf --show-attachment=factur-x.xml invoice.pdf > factur-x.xml && agw einvoice validate factur-x.xml --json\n\nFiles up to 20 MB; AGW_EINVOICE_MAX_MEMORY_MB sets the heap of the checks (megabytes).\n\nExit codes: 0 valid, 2 unreadable, over 20 MB, out of memory or not an e-invoice, 8 an official rule is broken (the findings are printed).',
    )
    .action((file: string, flags: { as?: (typeof EINVOICE_KINDS)[number]; json?: boolean }) =>
      einvoiceValidate(file, flags, context),
    );

  registerOperatorCommands(program, { io: context.io, env: context.env });
  registerAgentCommands(program, { io: context.io, env: context.env });

  return program;
}
