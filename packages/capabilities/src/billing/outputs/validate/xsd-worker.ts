import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** A file the XSD check reads (xmllint-wasm has no file system of its own: everything is passed in). */
export interface XsdFile {
  readonly fileName: string;
  readonly contents: string;
}

/** What xmllint answered: its exit code (0 valid, 3/4 invalid) and its error output. */
export interface XmllintRun {
  readonly exitCode: number;
  readonly stderr: string;
}

/**
 * The worker's code (run with `eval`, so the bundle needs no extra file). It compiles xmllint.wasm
 * once and keeps the schema folders it was sent; each request instantiates the compiled module with
 * fresh memory and runs xmllint's main once — one run at a time, as xmllint's main is not re-entrant.
 * xmllint-wasm's own validateXML starts a new worker and recompiles the wasm on every call, which was
 * most of the 0.3–1 s an XSD check took.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Module = require(workerData.glue);
const wasm = new WebAssembly.Module(require('node:fs').readFileSync(workerData.wasm));
const folders = new Map();
let queue = Promise.resolve();
function run({ id, xml, folder, main }) {
  return new Promise((resolve) => {
    let stderr = '';
    let done = false;
    const finish = (exitCode) => {
      if (done) return;
      done = true;
      parentPort.postMessage({ id, exitCode, stderr });
      resolve();
    };
    Module({
      inputFiles: [{ fileName: 'invoice.xml', contents: xml }, ...folders.get(folder)],
      arguments: ['--schema', main, '--noout', 'invoice.xml'],
      print() {},
      printErr(text) { stderr += text + '\\n'; },
      onExit: finish,
      onAbort(reason) { stderr += 'WASM Abort: ' + reason; finish(-1); },
      wasmMemory: new WebAssembly.Memory({ initial: 256, maximum: 1024 }),
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm));
        return {};
      },
    }).catch((error) => { stderr += String(error); finish(-2); });
  });
}
parentPort.on('message', (message) => {
  if (message.files) { folders.set(message.folder, message.files); return; }
  queue = queue.then(() => run(message));
});
`;

/**
 * One long-lived xmllint-wasm worker thread per process: schemas are sent to it once per folder, and
 * a check posts only the document. It keeps the process alive only while a check is out, and is started again
 * after it died or was stopped.
 */
export class XsdWorker {
  private worker: Worker | undefined;
  private readonly sent = new Set<string>();
  private readonly pending = new Map<
    number,
    { resolve: (run: XmllintRun) => void; reject: (error: Error) => void }
  >();
  private nextId = 0;

  /** Checks `xml` against `main` of the schema `folder` (its files from `files()` the first time). */
  check(xml: string, folder: string, main: string, files: () => readonly XsdFile[]): Promise<XmllintRun> {
    const worker = this.started();
    if (!this.sent.has(folder)) {
      worker.postMessage({ folder, files: files() });
      this.sent.add(folder);
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held while a check is out, so a process awaiting it does not exit under it; idle, let go.
      worker.ref();
      worker.postMessage({ id, xml, folder, main });
    });
  }

  /** Ends the worker (a later check starts a new one). */
  async stop(): Promise<void> {
    const worker = this.worker;
    this.forget(new Error('The XSD worker was stopped.'));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker !== undefined) return this.worker;
    const require = createRequire(import.meta.url);
    const glue = require.resolve('xmllint-wasm/xmllint-node.js');
    const worker = new Worker(WORKER_CODE, {
      eval: true,
      // The worker's code is plain CommonJS: none of the parent's flags (--input-type=module, loaders).
      execArgv: [],
      workerData: { glue, wasm: join(dirname(glue), 'xmllint.wasm') },
    });
    worker.on('message', (message: { id: number; exitCode: number; stderr: string }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      waiting?.resolve({ exitCode: message.exitCode, stderr: message.stderr });
    });
    worker.on('error', (error) => this.forget(error));
    worker.on('exit', () => {
      if (this.worker === worker) this.forget(new Error('The XSD worker exited.'));
    });
    // Idle until a check is posted: a process (a CLI, a script using the library) may exit meanwhile.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private forget(error: Error): void {
    this.worker = undefined;
    this.sent.clear();
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
