import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type GatewayHandle, loadConfig, type StartOptions, startGateway } from '@agw/gateway';
import type { CommandContext } from '../../src/context.js';
import { createCliEnvironment } from './run-cli.js';

/** A gateway started in-process for CLI tests, with its DATA_DIR (holding operator.key). */
export interface TestGateway {
  readonly gateway: GatewayHandle;
  /** Environment for CLI runs: DATA_DIR, AGW_URL and, when used, DATABASE_URL (no AGW_OPERATOR_KEY). */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  readonly operatorKey: string;
  close(): Promise<void>;
}

/**
 * Starts a gateway on an ephemeral port over a fresh DATA_DIR (and database, with DATABASE_URL);
 * `options` passes e.g. `catalog` and `handlers` (a high-risk test capability) to startGateway.
 */
export async function startTestGateway(options: StartOptions = {}): Promise<TestGateway> {
  const environment = await createCliEnvironment({ migrated: true });
  const dataDir = environment.env.DATA_DIR as string;
  const gateway = await startGateway(
    loadConfig({ ...environment.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' }),
    options,
  );
  const operatorKey = (await readFile(join(dataDir, 'operator.key'), 'utf8')).trim();
  const env: Record<string, string> = { ...environment.env, AGW_URL: gateway.url, LOG_LEVEL: 'silent' };
  return {
    gateway,
    env,
    dataDir,
    operatorKey,
    async close() {
      await gateway.close();
      await environment.cleanup();
    },
  };
}

/** A CommandContext whose output is kept in memory. */
export function captureContext(env: Record<string, string | undefined>, isTTY = false) {
  let stdout = '';
  let stderr = '';
  const context: CommandContext = {
    env,
    io: {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      isTTY,
    },
  };
  return { context, stdout: () => stdout, stderr: () => stderr };
}
