// Types of bench/fleet.mjs for its TypeScript user, the fleet test.
import type { ChildProcess } from 'node:child_process';

export { freePort } from './services.mjs';
export function prepareRunDir(runDir: string): Promise<void>;
export function startPgbouncer(options: {
  runDir: string;
  pgPort: number;
  poolSize?: number;
}): Promise<{ port: number; child: ChildProcess }>;
export function startNginx(options: {
  runDir: string;
  upstreamPorts: readonly number[];
}): Promise<{ url: string; child: ChildProcess }>;
export function behindPgbouncer(bouncerPort: number, database?: string): Record<string, string>;
