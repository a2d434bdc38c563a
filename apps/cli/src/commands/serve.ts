import type { GatewayConfig } from '@agw/gateway';
import { type CommandIO, EXIT_CONFIG, ExitError } from '../io.js';
import { removeServeState, writeServeState } from '../serve-state.js';

/** Flags of `agw serve`; each wins over its environment variable. */
export interface ServeOptions {
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly dataDir?: string | undefined;
}

/** What serve needs from its surroundings (the process in production, fakes in tests). */
export interface ServeEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: CommandIO;
  /** Resolves when the process is asked to stop (SIGTERM or SIGINT). */
  readonly stopSignal: Promise<string>;
}

/**
 * `agw serve`: starts the gateway (migrations included) and runs until a stop signal, then shuts down
 * gracefully (a second signal, or twice SHUTDOWN_GRACE_MS, forces the exit, code 1). Resolves once everything is closed. While it runs, its URL and DATA_DIR are in the state
 * file (serve-state.ts) that the other commands read.
 */
export async function serve(options: ServeOptions, environment: ServeEnvironment): Promise<void> {
  // Loaded on demand so `agw --help` and the agent commands never load the server and its drivers.
  const { ConfigError, loadConfig, startGateway } = await import('@agw/gateway');
  let config: GatewayConfig;
  try {
    config = loadConfig(environment.env, {
      port: options.port,
      host: options.host,
      dataDir: options.dataDir,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new ExitError(EXIT_CONFIG, error.message);
    throw error;
  }
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway(config);
  } catch (error) {
    // A data folder other users can open is refused at start, one line like a bad variable.
    if (error instanceof ConfigError) throw new ExitError(EXIT_CONFIG, error.message);
    throw error;
  }
  const { env, io } = environment;
  const state = {
    url: localUrl(gateway.url),
    data_dir: config.dataDir,
    pid: process.pid,
    started_at: new Date().toISOString(),
  };
  // Without the state file the gateway still serves; other shells then need AGW_URL and DATA_DIR.
  await writeServeState(env, state).then(
    (path) => path && io.stderr(`agw: wrote ${path}: agw commands in other shells find this gateway there\n`),
    (error: NodeJS.ErrnoException) =>
      io.stderr(`agw: could not write the serve state file: ${error.code ?? error.message}\n`),
  );
  try {
    await environment.stopSignal;
    // Requests get SHUTDOWN_GRACE_MS (the gateway cuts them then); the background work that follows (the
    // job in progress, the last seal, the outbox) as long again, or the exit is forced.
    const bound = 2 * (config.shutdownGraceMs ?? 10_000);
    const force = setTimeout(() => {
      io.stderr(`agw: shutdown did not finish within ${bound} ms; exiting\n`);
      process.exit(1);
    }, bound);
    force.unref();
    await gateway.close();
    clearTimeout(force);
  } finally {
    await removeServeState(env, process.pid);
  }
}

/** The URL a command on this machine uses: a wildcard bind (0.0.0.0, ::) is reached on loopback. */
function localUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}
