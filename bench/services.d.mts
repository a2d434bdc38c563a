// Types of bench/services.mjs for its TypeScript users (tests/reliability/helpers/net.ts).
import type { ChildProcess } from 'node:child_process';

export function freePort(): Promise<number>;
export function waitForPort(port: number, what: string): Promise<void>;
export function adminQuery(url: string, text: string): Promise<Record<string, unknown>[]>;
export function startPostgres(options: {
  dir: string;
  settings?: Record<string, string | number>;
}): Promise<{ port: number; url: string; stop(): void }>;
export function startRedis(): Promise<{ port: number; url: string; child: ChildProcess }>;
