// Which base64 field `agw invoke --out` writes, how the human output shows the others, and the `--out -`
// refusals that come before any request. The file written end to end is in agent-invoke-e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { binaryFields, checkOutTarget, mainBinaryField, withoutBase64 } from '../src/binary-result.js';

const pdf = Buffer.from('%PDF-1.7 '.repeat(400)).toString('base64');
const xml = Buffer.from('<rsm:CrossIndustryInvoice/>').toString('base64');
const facturx = {
  filename: 'RE-2026-00001-facturx.pdf',
  mime_type: 'application/pdf',
  size_bytes: 3600,
  embedded_xml_base64: xml,
  pdf_base64: pdf,
};

describe('binary results', () => {
  it("writes the field the result's mime_type names, not the XML embedded in a Factur-X", () => {
    expect(mainBinaryField(facturx, binaryFields(facturx))?.path).toEqual(['pdf_base64']);
    const nested = { document: { content_base64: xml } };
    expect(mainBinaryField(nested, binaryFields(nested))?.path).toEqual(['document', 'content_base64']);
  });

  it('shows each base64 field as its size, the written one as where it went', () => {
    const written = { field: binaryFields(facturx)[1] as never, target: 'invoice.pdf', size: 3600 };
    expect(withoutBase64(facturx, written)).toEqual({
      ...facturx,
      pdf_base64: '<written to invoice.pdf>',
      embedded_xml_base64: '<27 B not shown: --out FILE writes it, --json prints it>',
    });
    expect(withoutBase64(facturx, undefined)).toMatchObject({
      pdf_base64: '<3.5 KB not shown: --out FILE writes it, --json prints it>',
    });
  });

  it('refuses --out - on a terminal and beside --json', async () => {
    const io = { stdout: () => {}, stderr: () => {}, stdoutBytes: () => {} };
    await expect(checkOutTarget({ out: '-' }, { ...io, isTTY: true })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('refusing to write binary bytes to a terminal'),
    });
    await expect(checkOutTarget({ out: '-', json: true }, io)).rejects.toMatchObject({ exitCode: 2 });
    await expect(checkOutTarget({ out: '-' }, io)).resolves.toBeUndefined();
  });
});
