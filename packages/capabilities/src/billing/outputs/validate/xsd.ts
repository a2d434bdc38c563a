import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { packageAssetDir } from '../assets.js';
import { type XsdFile, XsdWorker } from './xsd-worker.js';

/** A schema folder's files, read once per process (xmllint-wasm has no file system of its own). */
const schemaSets = new Map<string, XsdFile[]>();

function schemaSet(folder: string): XsdFile[] {
  let files = schemaSets.get(folder);
  if (files === undefined) {
    const root = join(packageAssetDir('einvoice-rules'), 'xsd', folder);
    const walk = (directory: string): string[] =>
      readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(directory, entry.name)) : [join(directory, entry.name)],
      );
    // Names keep the folder layout, so the schemas' relative schemaLocation imports resolve.
    files = walk(root)
      .filter((file) => file.endsWith('.xsd'))
      .map((file) => ({
        fileName: `xsd/${relative(root, file).split(sep).join('/')}`,
        contents: readFileSync(file, 'utf8'),
      }));
    schemaSets.set(folder, files);
  }
  return files;
}

/** The process's one xmllint worker (started on first use, or by the warm-up). */
const worker = new XsdWorker();

/** xmllint's error lines (`invoice.xml:6: Schemas validity error : …`) as messages, without the file and line. */
function errorMessages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !/ fails to validate$| validates$/.test(line.trim()))
    .map((line) => {
      const [fileName, lineNumber, ...rest] = line.split(':');
      return fileName && lineNumber && rest.length > 0 ? rest.join(':').trim() : line.trim();
    });
}

/** The XSD errors of `xml` against `mainXsd` (relative to its folder); empty when valid. */
export async function xsdErrors(xml: string, folder: string, mainXsd: string): Promise<string[]> {
  const run = await worker.check(xml, folder, `xsd/${mainXsd}`, () => schemaSet(folder));
  if (run.exitCode === 0) return [];
  // 3 and 4 are xmllint's "does not validate"; anything else is xmllint failing, not the document.
  if (run.exitCode !== 3 && run.exitCode !== 4) {
    throw new Error(`xmllint failed (exit ${run.exitCode}): ${run.stderr.trim()}`);
  }
  return errorMessages(run.stderr);
}

/** Stops the xmllint worker (the gateway's shutdown); a later check starts it again. */
export function stopXsdWorker(): Promise<void> {
  return worker.stop();
}
