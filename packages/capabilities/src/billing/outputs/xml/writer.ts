/** A node of the XML the e-invoice writers build: an element with attributes and children or text. */
export type XmlNode = readonly [
  name: string,
  attributes: Readonly<Record<string, string>>,
  content: XmlContent,
];
type XmlContent = string | readonly (XmlNode | null | undefined | false)[];

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

/**
 * An element with text, or null when the text is absent or blank: EN 16931 forbids empty elements
 * (PEPPOL-EN16931-R008), so an absent value leaves its element out instead of writing it empty.
 */
export function text(
  name: string,
  value: string | number | null | undefined,
  attributes = {},
): XmlNode | null {
  if (value === null || value === undefined) return null;
  const content = String(value).trim();
  return content === '' ? null : [name, attributes, content];
}

/** An element with child elements, or null when none of them is present. */
export function group(
  name: string,
  children: readonly (XmlNode | null | undefined | false)[],
  attributes = {},
): XmlNode | null {
  return children.some(Boolean) ? [name, attributes, children] : null;
}

/** Serializes `root` as an XML document (UTF-8, two-space indent). */
export function serialize(root: XmlNode): string {
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const write = (node: XmlNode, depth: number) => {
    const [name, attributes, content] = node;
    const attrs = Object.entries(attributes)
      .map(([key, value]) => ` ${key}="${escapeAttribute(value)}"`)
      .join('');
    const indent = '  '.repeat(depth);
    if (typeof content === 'string') {
      lines.push(`${indent}<${name}${attrs}>${escapeText(content)}</${name}>`);
      return;
    }
    lines.push(`${indent}<${name}${attrs}>`);
    for (const child of content) if (child) write(child, depth + 1);
    lines.push(`${indent}</${name}>`);
  };
  write(root, 0);
  return `${lines.join('\n')}\n`;
}
