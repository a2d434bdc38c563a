import { createLogger, type Logger } from '@agw/gateway';

/** A logger whose JSON lines are kept in memory for assertions. */
export interface CapturedLog {
  readonly logger: Logger;
  /** Every line written so far, as text. */
  text(): string;
  /** Every line written so far, parsed. */
  entries(): Array<Record<string, unknown>>;
}

/** Creates a debug-level logger writing into memory. */
export function captureLog(): CapturedLog {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  });
  return {
    logger,
    text: () => lines.join(''),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
