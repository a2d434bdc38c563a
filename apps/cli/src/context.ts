import type { CommandIO } from './io.js';
import type { Env } from './operator-context.js';

/** What every operator command receives besides its arguments and flags. */
export interface CommandContext {
  readonly io: CommandIO;
  readonly env: Env;
}
