// SaxonJS 2 ships no type declarations; this declares what the validator uses.
declare module 'saxon-js' {
  interface SaxonNode {
    getAttribute(name: string): string | null;
    readonly textContent: string | null;
  }
  interface TransformResult {
    readonly principalResult: unknown;
  }
  const SaxonJS: {
    transform(options: Record<string, unknown>, mode: 'async'): Promise<TransformResult>;
    getResource(options: ({ file: string } | { text: string }) & { type: 'xml' }): Promise<unknown>;
    XPath: {
      evaluate(xpath: string, context: unknown, options: Record<string, unknown>): SaxonNode[];
    };
  };
  export default SaxonJS;
}
