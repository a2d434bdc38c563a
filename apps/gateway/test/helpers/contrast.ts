// WCAG 2.x contrast, computed from the CSS a page serves, so a colour change that breaks 1.4.3 (text,
// 4.5:1) or 1.4.11 (focus indicators and controls, 3:1) fails a test instead of a later audit.

/** Relative luminance of `#rgb` or `#rrggbb` (WCAG 2.x definition). */
export function luminance(hex: string): number {
  const digits = hex.replace('#', '');
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits;
  if (!/^[0-9a-f]{6}$/i.test(full)) throw new Error(`not a hex colour: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((at) => {
    const channel = Number.parseInt(full.slice(at, at + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The declarations of every rule of a flat stylesheet (no @media nesting), keyed by each selector. */
export function cssRules(css: string): Map<string, Record<string, string>> {
  const rules = new Map<string, Record<string, string>>();
  for (const match of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const declarations: Record<string, string> = {};
    for (const declaration of (match[2] as string).split(';')) {
      const colon = declaration.indexOf(':');
      if (colon > 0) declarations[declaration.slice(0, colon).trim()] = declaration.slice(colon + 1).trim();
    }
    for (const selector of (match[1] as string).split(',')) {
      const key = selector.trim();
      rules.set(key, { ...rules.get(key), ...declarations });
    }
  }
  return rules;
}

/** The hex colour inside a declaration value such as `3px solid #b45309`. */
export function hexIn(value: string | undefined): string {
  const hex = value?.match(/#[0-9a-f]{6}\b|#[0-9a-f]{3}\b/i)?.[0];
  if (!hex) throw new Error(`no hex colour in ${value}`);
  return hex;
}
