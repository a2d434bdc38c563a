import slugify from '@sindresorhus/slugify';

/**
 * A URL slug of a name people typed: transliterated (`Erstgespräch` → `erstgespraech`, `ß` → `ss`,
 * German rules for ä/ö/ü), lower case, words joined by `-`, at most `maxLength` characters, `fallback`
 * when nothing is left. @sindresorhus/slugify is ESM only; tsup bundles it (tsup.config.ts) so the
 * CommonJS build needs no `require` of an ES module.
 */
export function slugOf(name: string, maxLength: number, fallback: string): string {
  const slug = slugify(name, { locale: 'de' }).slice(0, maxLength).replace(/-+$/, '');
  return slug || fallback;
}
