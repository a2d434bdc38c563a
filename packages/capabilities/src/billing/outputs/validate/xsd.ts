import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';
import { packageAssetDir } from '../assets.js';

/** A schema folder's files, read once per process (xmllint-wasm has no file system of its own). */
const schemaSets = new Map<string, XMLFileInfo[]>();

function schemaSet(folder: string): XMLFileInfo[] {
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

/** The XSD errors of `xml` against `mainXsd` (relative to its folder); empty when valid. */
export async function xsdErrors(xml: string, folder: string, mainXsd: string): Promise<string[]> {
  const files = schemaSet(folder);
  const main = `xsd/${mainXsd}`;
  const result = await validateXML({
    xml: [{ fileName: 'invoice.xml', contents: xml }],
    schema: files.filter((file) => file.fileName === main),
    preload: files.filter((file) => file.fileName !== main),
  });
  return result.valid ? [] : result.errors.map((error) => error.message.trim());
}
