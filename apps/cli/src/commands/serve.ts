import type { GatewayConfig } from '@agw/gateway';
import { EXIT_CONFIG, ExitError } from '../io.js';

/** Flags of `agw serve`; each wins over its environment variable. */
export interface ServeOptions {
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly dataDir?: string | undefined;
}

/** What serve needs from its surroundings (the process in production, fakes in tests). */
export interface ServeEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves when the process is asked to stop (SIGTERM or SIGINT). */
  readonly stopSignal: Promise<string>;
}

/**
 * `agw serve`: starts the gateway (migrations included) and runs until a stop signal, then shuts down
 * gracefully. Resolves once everything is closed.
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
  await environment.stopSignal;
  await gateway.close();
}

/** A promise that resolves with the name of the first SIGTERM or SIGINT the process receives. */
export function processStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      // Later signals are ignored: shutdown is already bounded by its own timeout.
      process.on('SIGTERM', () => {});
      process.on('SIGINT', () => {});
      resolve(signal);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
