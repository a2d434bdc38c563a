// Runs the client's README quick start as a user would, playing the human parts: types the owner's code
// from the dev mailbox when asked, and as the operator approves the installation and funds its wallet
// with the installed `agw`. Fails unless the paid upload ends `succeeded`.
// Usage (in the consumer folder): node drive-quick-start.mjs <tsx> <file.ts> <gateway url> <data dir>
import { execFileSync, spawn } from 'node:child_process';

const [tsx, file, url, dataDir] = process.argv.slice(2);
const agw = (...args) =>
  JSON.parse(execFileSync('node_modules/.bin/agw', [...args, '--url', url, '--data-dir', dataDir, '--json']));
const mail = (...args) =>
  JSON.parse(execFileSync('node_modules/.bin/agw', [...args, '--data-dir', dataDir, '--json']));

// The whole run waits once for the SDK's first approval poll (30 s by the spec's rule).
const timer = setTimeout(() => fail('quick start did not finish within 120 s'), 120_000);
// Its own process group, so a failure stops tsx and the node it starts together.
const child = spawn(tsx, [file], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
let output = '';
let answered = false;
let approved = false;

function fail(message) {
  console.error(`quick start: ${message}\n--- its output:\n${output}`);
  try {
    process.kill(-child.pid);
  } catch {}
  process.exit(1);
}

child.stdout.on('data', (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
  if (!answered && output.includes('Code sent to owner@example.com:')) {
    answered = true;
    const { messages } = mail('mail', 'list');
    const last = messages.filter((m) => m.to.includes('owner@example.com')).at(-1);
    if (!last) fail('no owner code in the dev mailbox');
    const { message } = mail('mail', 'show', last.id);
    const code = /^Code: (\S+)$/m.exec(message.body)?.[1];
    if (!code) fail(`no "Code:" line in ${last.id}`);
    child.stdin.write(`${code}\n`);
  }
  if (!approved && output.includes('approval_wait_started')) {
    approved = true;
    const { installations } = agw('installations', 'list', '--status', 'pending');
    if (installations.length !== 1) fail(`expected one pending installation, got ${installations.length}`);
    const [{ id, organization }] = installations;
    agw('installations', 'approve', id);
    agw('wallet', 'credit', organization.id, '5');
    console.log(`(operator: approved ${id}, credited 5 to ${organization.id})`);
  }
});

child.on('exit', (code) => {
  clearTimeout(timer);
  if (code !== 0) fail(`exited with ${code}`);
  if (!/^succeeded [0-9a-f]{64} /m.test(output)) fail('no "succeeded <sha256>" line');
  console.log('quick start: ok');
});
