/** Pins that the README's quick start is the type-checked examples/quick-start.ts, verbatim. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('README quick start equals examples/quick-start.ts', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const example = readFileSync(new URL('../examples/quick-start.ts', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
});
