import { createInterface } from 'node:readline/promises';
import type { AgentContext } from './agent-context.js';
import type { CommandIO } from './io.js';

/** Asks on the terminal (prompt on stderr so stdout stays clean for `--json`). */
async function processPrompt(question: string): Promise<string> {
  const readline = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await readline.question(question);
  } finally {
    readline.close();
  }
}

/** All of the process's stdin as text. */
async function processStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** The context's prompt, or the real terminal's. */
export function promptOf(context: AgentContext): (question: string) => Promise<string> {
  return context.prompt ?? processPrompt;
}

/** The context's stdin reader, or the process's (read once). */
export function stdinOf(context: AgentContext): () => Promise<string> {
  return context.readStdin ?? processStdin;
}

/** Whether the user can be asked: the context says so, else stdin is a TTY. */
export function isInteractive(context: AgentContext): boolean {
  return context.interactive ?? process.stdin.isTTY === true;
}

/** A progress line: animated on a TTY (stderr), one plain line per update otherwise. */
export interface Spinner {
  update(text: string): void;
  stop(finalText?: string): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Starts a spinner on stderr. A dozen lines instead of a dependency: we need one line redrawn every
 * 100 ms, and only on a terminal (ora/nanospinner add TTY detection we already have in CommandIO).
 */
export function startSpinner(io: CommandIO, text: string): Spinner {
  let current = text;
  if (io.isTTY !== true) {
    io.stderr(`${text}\n`);
    return {
      update(next) {
        if (next !== current) io.stderr(`${next}\n`);
        current = next;
      },
      stop(finalText) {
        if (finalText) io.stderr(`${finalText}\n`);
      },
    };
  }
  let frame = 0;
  const draw = () => {
    io.stderr(`\r\x1b[K${FRAMES[frame % FRAMES.length]} ${current}`);
    frame += 1;
  };
  draw();
  const timer = setInterval(draw, 100);
  timer.unref();
  return {
    update(next) {
      current = next;
    },
    stop(finalText) {
      clearInterval(timer);
      io.stderr(`\r\x1b[K${finalText ? `${finalText}\n` : ''}`);
    },
  };
}
