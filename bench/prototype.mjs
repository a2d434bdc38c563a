// The prototype of the invoke hot path (../shared/bench/prototype-gateway.mjs: the least work an invoke
// can do here), the reference both `npm run bench` (bench/run.mjs) and bench/invoke-cpu.mjs measure
// the gateway against in the same run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

// The prototype ceiling lives in the steering repo's shared/ folder beside this checkout.
export const prototypePath = join(root, '../shared/bench/prototype-gateway.mjs');

/**
 * The prototype on a free port with `env` (its DATABASE_URL: a fresh PostgreSQL database; without one,
 * PGlite in memory).
 */
export async function startPrototype(env) {
  const port = 19080 + Math.floor(Math.random() * 1000);
  const child = spawn(process.execPath, [prototypePath], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 240; attempt += 1) {
    const up = await fetch(url, { method: 'POST', body: '{}' }).then(
      () => true,
      () => false,
    );
    if (up) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error('the prototype did not answer within 60 s');
}

/** The prototype's two invokes, shaped like the gateway's scenarios (same bodies, fresh keys). */
export function prototypeRequests() {
  const headers = { 'content-type': 'application/json', authorization: 'Bearer proto-key' };
  const upload = {
    id: 'documents.document.upload',
    params: {
      file_name: 'bench.txt',
      mime_type: 'text/plain',
      content_base64: Buffer.from('agent gateway bench\n').toString('base64'),
    },
  };
  let counter = 0;
  const prefix = `proto-${Date.now().toString(36)}-`;
  return {
    read: { method: 'POST', headers, body: JSON.stringify({ id: 'core.org.current.get', params: {} }) },
    mutating: {
      method: 'POST',
      headers,
      body: JSON.stringify(upload),
      setupRequest(req) {
        counter += 1;
        const body = { ...upload, idempotency_key: `${prefix}${counter.toString().padStart(12, '0')}` };
        return { ...req, body: JSON.stringify(body) };
      },
    },
  };
}
