// Derives a faster copy of an official Schematron stylesheet compiled by the ISO "skeleton" (the
// Factur-X and CEN EN 16931 XSLT), with the same rules, asserts, ids, flags and messages: only how the
// rules are reached changes. SaxonJS has no indexes (Saxon for Java has), and a 60-line Factur-X took
// ≈630 ms of CPU, mostly walking the document once per pattern (66 patterns, each visiting every
// element and attribute through template dispatch), scanning code lists linearly (2 162 unit codes per
// line) and scanning the whole document for each `//name` in a test. The rewrites, each checked against
// the file's expected shape (an unexpected shape throws, never derives silently):
//
// 1. Code lists: `document(db)/codedb/cl[@id=N]/enumeration[@value=$v]` in an assert's test becomes
//    `document(db)/codedb/cl[@id=N]/key('…', $v, .)`, a keyed lookup of the same `enumeration`
//    elements (a key compares untyped values as strings, as `=` does here). The SVRL `test` text keeps
//    the official expression.
// 2. `//name` and `//@name` starting a path in an assert or report test read a by-name key (see
//    indexDescendantPaths): the same nodes in the same order.
// 3. Traversal: a pattern's rules fire on the elements and attributes its rule contexts name (the last
//    step of each `match`: `ram:ID`, `@schemeID`, or a wildcard such as `ram:*`). The pattern is applied
//    to exactly those nodes (the key, or `//ram:*` for a wildcard), in document order, instead of
//    walking the whole tree — the nodes the skeleton would visit, minus those only its do-nothing
//    default template matches. The templates and their priorities are unchanged, so the same rule fires
//    on the same node. A pattern with a rule context ending otherwise (`/`, `text()`) keeps its walk.
// 4. Trace output nobody reads: `svrl:fired-rule` and `svrl:active-pattern` elements (the latter's
//    `apply-templates` runs the default mode, whose only template drops text: it outputs nothing).
//
// `test/einvoice-derived-rules.test.ts` runs the official and derived stylesheets on valid and broken
// invoices and requires identical failed asserts and reports.

const NODES_KEY = 'agw-derived-nodes-by-name';
const CODE_KEY = 'agw-derived-code-by-value';

/** `text` split at `separator` where it is outside brackets, parentheses and string literals. */
function splitTopLevel(text, separator) {
  const parts = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '[' || char === '(') depth += 1;
    else if (char === ']' || char === ')') depth -= 1;
    else if (depth === 0 && char === separator) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** The XML attribute value `raw` as text (the skeleton escapes quotes, `<`, `&` and line ends). */
function unescapeAttribute(raw) {
  return raw
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#x([0-9a-fA-F]+);/g, (_, hex) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]+);/g, (_, decimal) => String.fromCodePoint(Number(decimal)))
    .replace(/&amp;/g, '&');
}

const NAME = /^(@?)((?:[A-Za-z_][\w.-]*:)?[A-Za-z_][\w.-]*)$/;
/** `*`, `@*`, `ram:*`: every element, attribute, element of a namespace. */
const WILDCARD = /^@?(?:[A-Za-z_][\w.-]*:)?\*$/;

/**
 * The names (`ram:ID`, `@schemeID`) or wildcards (`ram:*`, `@*`) a match pattern's alternatives end
 * in, or undefined when one of them ends otherwise (`node()`, `text()`, an axis, `/`).
 */
export function lastStepNames(pattern) {
  const names = [];
  for (const alternative of splitTopLevel(pattern, '|')) {
    const steps = splitTopLevel(alternative.trim(), '/');
    const last = steps[steps.length - 1] ?? '';
    // Predicates filter the node the step names; the name alone is a superset of what matches.
    const bracket = last.indexOf('[');
    const test = (bracket === -1 ? last : last.slice(0, bracket)).trim();
    if (WILDCARD.test(test)) {
      names.push(test);
      continue;
    }
    const match = NAME.exec(test);
    if (match === null) return undefined;
    names.push(`${match[1]}${match[2]}`);
  }
  return names;
}

/** `@x` → `QName('', 'x')`; `p:x` → `xs:QName('p:x')` (resolved against the stylesheet's prefixes). */
function qnameExpression(name) {
  if (name.startsWith('@')) {
    const local = name.slice(1);
    if (local.includes(':')) return `xs:QName('${local}')`;
    return `QName('', '${local}')`;
  }
  if (!name.includes(':')) throw new Error(`Unprefixed element name ${name} in a rule context`);
  return `xs:QName('${name}')`;
}

/** Words after which `//` starts a path (an operand), as after `(`, `,` or an operator. */
const OPERAND_KEYWORDS = new Set(['and', 'or', 'in', 'return', 'satisfies', 'then', 'else', 'div', 'mod']);

/** Whether `//` at `index` of the (XML-escaped) expression starts a path rather than continuing one. */
function startsPath(expression, index) {
  const before = expression.slice(0, index).trimEnd();
  if (before === '') return true;
  if (/(?:[([,=|+]|&lt;|&gt;)$/.test(before)) return true;
  const word = /(?:^|[^\w.:$@/-])([A-Za-z]+)$/.exec(before);
  return word !== null && OPERAND_KEYWORDS.has(word[1]);
}

/**
 * `expression` (an attribute value as written in the XSLT, so `&quot;`/`&lt;` escaped) with each
 * path that starts `//name` or `//@name` read from the by-name key instead of a walk of the whole
 * document: `key(k, QName)` is the same nodes in the same (document) order, from the same document
 * (the context node's root, which both `//` and key() require to be a document node). When a
 * predicate follows the name it may be positional (`//x[1]` is the first x of each parent), so the
 * path becomes `key(k, QName)/../x[…]`: the parents of all x, then their x children as `//` had them.
 * Anything else (`//*`, `//text()`, `a//b`, an axis) is left as written. Answers the count rewritten.
 */
export function indexDescendantPaths(expression) {
  let out = '';
  let count = 0;
  let quote = '';
  for (let index = 0; index < expression.length; ) {
    const rest = expression.slice(index);
    const delimiter = rest.startsWith('&quot;') ? '&quot;' : rest.startsWith('&apos;') ? "'" : rest[0];
    const width = rest.startsWith('&quot;') || rest.startsWith('&apos;') ? 6 : 1;
    if (quote !== '') {
      if (delimiter === quote) quote = '';
      out += rest.slice(0, width);
      index += width;
      continue;
    }
    if (delimiter === "'" || delimiter === '&quot;') {
      quote = delimiter;
      out += rest.slice(0, width);
      index += width;
      continue;
    }
    const path = /^\/\/(@?)((?:[A-Za-z_][\w.-]*:)?[A-Za-z_][\w.-]*)(?=\s*([^\s]?))/.exec(rest);
    const next = path?.[3] ?? '';
    if (path !== null && next !== '(' && next !== ':' && startsPath(expression, index)) {
      const [whole, at, name] = path;
      const qname = at === '' ? `xs:QName('${name}')` : qnameExpression(`@${name}`);
      if (at === '' && !name.includes(':')) throw new Error(`Unprefixed element //${name} in a test`);
      const lookup = `key('${NODES_KEY}', ${qname})`;
      out += next === '[' ? `${lookup}/../${at}${name}` : lookup;
      index += whole.length;
      count += 1;
      continue;
    }
    out += rest[0];
    index += 1;
  }
  return { expression: out, count };
}

/**
 * The derived stylesheet for the skeleton-compiled `xslt`; `stats` says what was rewritten (a test
 * and the build log show it).
 */
export function deriveIndexedSchematron(xslt) {
  let text = xslt;
  const stats = {
    codeLookups: 0,
    descendantPaths: 0,
    indexedPatterns: 0,
    walkedPatterns: 0,
    firedRules: 0,
    activePatterns: 0,
  };
  if (!text.includes('<!--KEYS AND FUNCTIONS-->')) {
    throw new Error('Not a skeleton-compiled Schematron (no KEYS AND FUNCTIONS section)');
  }

  // 1. Code lists, in the assert's xsl:when only (the svrl:failed-assert keeps the official text).
  const lookup =
    /document\('([^']+)'\)\/codedb\/cl\[@id=(\d+)\]\/enumeration\[@value=(\$[A-Za-z_][\w.-]*)\]/g;
  text = text.replace(/(<xsl:when test=")([^"]*)(")/g, (_, open, test, close) => {
    const rewritten = test.replace(lookup, (_match, file, id, variable) => {
      stats.codeLookups += 1;
      return `document('${file}')/codedb/cl[@id=${id}]/key('${CODE_KEY}', ${variable}, .)`;
    });
    return `${open}${rewritten}${close}`;
  });

  // 2. Paths from the document root in assert and report tests.
  text = text.replace(/(<xsl:(?:when|if) test=")([^"]*)(")/g, (_, open, test, close) => {
    const { expression, count } = indexDescendantPaths(test);
    stats.descendantPaths += count;
    return `${open}${expression}${close}`;
  });

  // 3. Traversal: per pattern mode, the names its rules end in.
  const templates = [...text.matchAll(/<xsl:template match="([^"]*)" mode="(M\d+)" priority="(-?[\d.]+)">/g)];
  const modes = new Map();
  for (const [, rawMatch, mode, priority] of templates) {
    const entry = modes.get(mode) ?? { names: new Set(), indexable: true, rules: 0 };
    modes.set(mode, entry);
    if (Number(priority) < 0) continue;
    entry.rules += 1;
    const names = lastStepNames(unescapeAttribute(rawMatch));
    if (names === undefined) entry.indexable = false;
    else for (const name of names) entry.names.add(name);
  }
  for (const [mode, entry] of modes) {
    // The skeleton's default templates of a pattern: text() drops, @*|node() walks on.
    const walk = `<xsl:apply-templates mode="${mode}" select="@*|*" />`;
    const start = `<xsl:apply-templates mode="${mode}" select="/" />`;
    const defaults =
      text.includes(`<xsl:template match="text()" mode="${mode}" priority="-1" />`) &&
      text.includes(
        `<xsl:template match="@*|node()" mode="${mode}" priority="-2">\n    ${walk}\n  </xsl:template>`,
      );
    const starts = text.split(start).length - 1;
    const walks = text.split(walk).length - 1;
    if (!defaults || starts !== 1 || walks !== entry.rules + 1) {
      throw new Error(`Pattern mode ${mode} does not have the skeleton's shape`);
    }
    if (!entry.indexable || entry.names.size === 0) {
      stats.walkedPatterns += 1;
      continue;
    }
    // Named nodes from the key; wildcards (`ram:*`) by a descendant step, which yields every node
    // of that kind; `|` merges them in document order without duplicates.
    const named = [...entry.names].filter((name) => !name.endsWith('*')).sort();
    const wildcards = [...entry.names].filter((name) => name.endsWith('*')).sort();
    const selections = [
      ...(named.length > 0 ? [`key('${NODES_KEY}', (${named.map(qnameExpression).join(', ')}))`] : []),
      ...wildcards.map((wildcard) => `//${wildcard}`),
    ];
    text = text.replace(start, `<xsl:apply-templates mode="${mode}" select="${selections.join(' | ')}" />`);
    text = text.split(walk).join('');
    stats.indexedPatterns += 1;
  }

  // 4. Trace output.
  text = text.replace(/<svrl:fired-rule\b[^>]*\/>/g, () => {
    stats.firedRules += 1;
    return '';
  });
  text = text.replace(
    /<svrl:active-pattern>\s*<xsl:attribute name="document">[\s\S]*?<\/svrl:active-pattern>/g,
    (block) => {
      if (
        !/^<svrl:active-pattern>\s*(<xsl:attribute name="documents?">\s*<xsl:value-of select="document-uri\(\/\)" \/>\s*<\/xsl:attribute>\s*){2}(<xsl:attribute name="(id|name)">[^<]*<\/xsl:attribute>\s*)*<xsl:apply-templates \/>\s*<\/svrl:active-pattern>$/.test(
          block,
        )
      ) {
        throw new Error(`Unexpected svrl:active-pattern block: ${block.slice(0, 200)}`);
      }
      stats.activePatterns += 1;
      return '';
    },
  );
  const defaultModeTemplates = [...text.matchAll(/<xsl:template\b(?![^>]*\bmode=)[^>]*>/g)].map((m) => m[0]);
  if (
    defaultModeTemplates.join('\n') !==
    '<xsl:template match="text()" priority="-1" />\n<xsl:template match="/">'
  ) {
    throw new Error(`The default mode has templates beyond text() and /: ${defaultModeTemplates.join(' ')}`);
  }

  const keys = [
    `<xsl:key name="${NODES_KEY}" match="*|@*" use="node-name(.)" />`,
    stats.codeLookups > 0 ? `<xsl:key name="${CODE_KEY}" match="enumeration" use="@value" />` : '',
  ].join('\n');
  text = text.replace(
    '<!--KEYS AND FUNCTIONS-->',
    `<!--KEYS AND FUNCTIONS-->\n<!-- Derived by @agw/capabilities scripts/derive-einvoice-rules.mjs: ${JSON.stringify(stats)} -->\n${keys}`,
  );
  return { xslt: text, stats };
}
