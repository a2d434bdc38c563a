// Installs the workspace's locked dependencies when they are missing or older than the lockfile,
// so `npm start` and `npm test` work on a machine that has only Node 20 and npm.
// pnpm comes through npx, pinned to the version in package.json ("packageManager"), because
// corepack cannot verify pnpm's registry signature on some machines.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.modules.yaml');
const lockfile = join(root, 'pnpm-lock.yaml');
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const upToDate = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lockfile).mtimeMs;
if (!upToDate) {
  console.error(`Installing dependencies with ${packageManager} (frozen lockfile)…`);
  try {
    execSync(`npx -y ${packageManager} install --frozen-lockfile`, { cwd: root, stdio: 'inherit' });
  } catch {
    console.error(`Installing dependencies failed (see pnpm's message above).`);
    process.exit(1);
  }
}
