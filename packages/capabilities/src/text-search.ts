/**
 * The words of a search as a tsquery (`re & 2026 & 0001:*`): letters and digits only, so nothing a
 * caller types is tsquery syntax. Null when there is no word.
 */
export function searchQuery(search: string | undefined): string | null {
  const words = (search ?? '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .slice(0, 10);
  // Only the last word is a prefix (search as you type): a short prefix such as `re:*` of every
  // `RE-…` number would make the index read every document.
  return words.length === 0
    ? null
    : words.map((word, i) => (i === words.length - 1 ? `${word}:*` : word)).join(' & ');
}
