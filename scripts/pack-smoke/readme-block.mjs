// Prints the first ```ts block under a heading of an installed package's README: what a user copies.
// Usage: node readme-block.mjs node_modules/@agw/client/README.md "## Quick start"
import { readFileSync } from 'node:fs';

const [file, heading] = process.argv.slice(2);
const text = readFileSync(file, 'utf8');
const section = text.indexOf(`\n${heading}\n`);
if (section < 0) throw new Error(`${file}: no "${heading}" section`);
const block = /```ts\n([\s\S]*?)```/.exec(text.slice(section));
if (!block) throw new Error(`${file}: no ts block under "${heading}"`);
process.stdout.write(block[1]);
