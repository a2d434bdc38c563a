// Every command of the `agw` tree, walked in-process: its --help output ends with at least one
// example. Catches a new command added without addHelpText. Spawned help runs are in cli.test.ts.
import type { Command } from 'commander';
import { expect, it } from 'vitest';
import { createProgram } from '../src/program.js';

function allCommands(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  return command.commands.flatMap((child) => {
    const childPath = [...path, child.name()];
    return [{ path: childPath.join(' '), command: child }, ...allCommands(child, childPath)];
  });
}

it('every command has --help with examples', () => {
  let output = '';
  const program = createProgram({
    io: {
      stdout: (text) => {
        output += text;
      },
      stderr: () => {},
    },
    env: {},
  });
  const commands = allCommands(program);
  expect(commands.map((entry) => entry.path)).toEqual(
    expect.arrayContaining([
      'installations approve',
      'operator key create',
      'mail show',
      'access invite-only',
    ]),
  );
  for (const { path, command } of commands) {
    output = '';
    command.outputHelp();
    expect(output, path).toMatch(/\nExamples:\n {2}\$ agw /);
  }
});
