import type { Pdf } from './page.js';

/** The file name Factur-X 1.0 (EN 16931 profile) requires for the embedded XML. */
export const FACTURX_FILENAME = 'factur-x.xml';

const property = (name: string, description: string) => `
              <rdf:li rdf:parseType="Resource">
                <pdfaProperty:name>${name}</pdfaProperty:name>
                <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                <pdfaProperty:category>external</pdfaProperty:category>
                <pdfaProperty:description>${description}</pdfaProperty:description>
              </rdf:li>`;

/**
 * The XMP Factur-X requires: the `fx:` fields naming the embedded file, its type, version and
 * profile, and the PDF/A extension schema that declares them (PDF/A allows only declared properties).
 */
const FACTURX_XMP = `
        <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
            xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
          <pdfaExtension:schemas>
            <rdf:Bag>
              <rdf:li rdf:parseType="Resource">
                <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
                <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                <pdfaSchema:property>
                  <rdf:Seq>${property('DocumentFileName', 'The name of the embedded XML document')}${property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER')}${property('Version', 'The actual version of the standard applying to the embedded XML document')}${property('ConformanceLevel', 'The conformance level of the embedded XML document')}
                  </rdf:Seq>
                </pdfaSchema:property>
              </rdf:li>
            </rdf:Bag>
          </pdfaExtension:schemas>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
          <fx:DocumentType>INVOICE</fx:DocumentType>
          <fx:DocumentFileName>${FACTURX_FILENAME}</fx:DocumentFileName>
          <fx:Version>1.0</fx:Version>
          <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
        </rdf:Description>`;

/**
 * Embeds the CII XML as `factur-x.xml` the way Factur-X 1.0 asks: an associated file of the document
 * (the catalog's /AF) with relationship Alternative (what German recipients expect; Data and Source
 * are allowed too), MIME type text/xml, listed among the embedded files, plus the XMP above.
 */
export function embedFacturX(pdf: Pdf, xml: string, date: Date): void {
  // pdfkit writes /AFRelationship from `relationship`; its type declarations do not list it yet.
  const options: Parameters<Pdf['file']>[1] & { relationship: 'Alternative' } = {
    name: FACTURX_FILENAME,
    type: 'text/xml',
    relationship: 'Alternative',
    description: 'Factur-X invoice (EN 16931)',
    creationDate: date,
    modifiedDate: date,
  };
  pdf.file(Buffer.from(xml, 'utf8'), options);
  pdf.appendXML(FACTURX_XMP);
}
