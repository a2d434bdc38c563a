// What a package entry point exports, read from its source with the TypeScript parser (types included,
// which a runtime import cannot list), grouped by the module each name comes from.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

export interface ExportedName {
  readonly name: string;
  /** True for `export type` names (no runtime value). */
  readonly type: boolean;
  /** The module it is re-exported from, relative to the entry's folder, without extension. */
  readonly module: string;
}

/** The TypeScript file an ESM specifier (`./x.js`, `./x/index.js`, `./x`) names. */
function sourceOf(from: string, specifier: string): string {
  const base = join(dirname(from), specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  throw new Error(`${from}: cannot find the source of ${specifier}`);
}

/** Every name `file` exports, following `export * from`. */
export function exportsOf(file: string, root = dirname(file)): ExportedName[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const names: ExportedName[] = [];
  const here = relative(root, file).replace(/\.ts$/, '');
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const specifier =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      const target = specifier === undefined ? file : sourceOf(file, specifier);
      const module = relative(root, target)
        .replace(/\.ts$/, '')
        .replace(/\/index$/, '');
      if (statement.exportClause === undefined) {
        names.push(...exportsOf(target, root));
      } else if (ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          names.push({ name: element.name.text, type: statement.isTypeOnly || element.isTypeOnly, module });
        }
      }
      continue;
    }
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) continue;
    const isType = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) {
          names.push({ name: declaration.name.text, type: false, module: here });
        }
      }
    } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
      names.push({ name: (statement.name as ts.Identifier).text, type: isType, module: here });
    }
  }
  return names;
}

/** The names as a list, one line per source module: values first, then types. */
export function exportList(entry: string): string {
  const byModule = new Map<string, ExportedName[]>();
  for (const exported of exportsOf(entry)) {
    const list = byModule.get(exported.module) ?? [];
    list.push(exported);
    byModule.set(exported.module, list);
  }
  const code = (names: readonly ExportedName[]) => names.map(({ name }) => `\`${name}\``).join(', ');
  return [...byModule.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, names]) => {
      const values = names.filter(({ type }) => !type);
      const types = names.filter(({ type }) => type);
      const parts = [values.length > 0 ? code(values) : '', types.length > 0 ? `types ${code(types)}` : ''];
      return `- \`${module}\`: ${parts.filter(Boolean).join('; ')}`;
    })
    .join('\n');
}
