// Every relative link of the project's markdown resolves in a fresh clone: the file is in the repository
// (not only in an ignored build or data folder) and a #anchor names a heading of its page. The README
// stays a front door: one or two screens.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, markdownLinks } from './markdown.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function markdownUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(folder, name));
}

const packageReadmes = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(group, name, 'README.md'))
    .filter((path) => existsSync(join(root, path))),
);
const pages = ['README.md', 'CONTRIBUTING.md', ...markdownUnder('docs'), ...packageReadmes];

/** Of `paths` (from the root), those git ignores: build output and data a clone does not have. */
function ignoredByGit(paths: readonly string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['check-ignore', '--stdin'], { cwd: root, input: paths.join('\n') });
    return new Set(out.toString().split('\n').filter(Boolean));
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

describe('markdown links', () => {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (!found) {
      found = headingAnchors(readFileSync(join(root, path), 'utf8'));
      anchorsOf.set(path, found);
    }
    return found;
  };

  const links = pages.flatMap((page) =>
    markdownLinks(readFileSync(join(root, page), 'utf8')).map((link) => ({ page, ...link })),
  );
  const relativeLinks = links.filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));

  it('finds the pages and their links', () => {
    expect(pages).toContain('docs/interface.md');
    expect(relativeLinks.length).toBeGreaterThan(50);
  });

  it('resolves every relative link and anchor to a file of the repository', () => {
    const broken: string[] = [];
    const targets = relativeLinks.map(({ page, line, target }) => {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : relative(root, resolve(root, dirname(page), decodeURI(path)));
      return { where: `${page}:${line}: ${target}`, file, anchor };
    });
    const inRepository = targets.map(({ file }) => file).filter((file) => !file.startsWith('..'));
    const ignored = ignoredByGit([...new Set(inRepository.filter((file) => existsSync(join(root, file))))]);
    for (const { where, file, anchor } of targets) {
      if (file.startsWith('..')) broken.push(`${where} (outside the repository)`);
      else if (!existsSync(join(root, file))) broken.push(`${where} (no ${file})`);
      else if (ignored.has(file)) broken.push(`${where} (${file} is ignored by git: not in a clone)`);
      else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) {
        broken.push(`${where} (no heading #${anchor} in ${file})`);
      } else if (anchor !== undefined && statSync(join(root, file)).isDirectory()) {
        broken.push(`${where} (an anchor on a folder)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the README', () => {
  it('fits in a screen or two: under 200 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThan(200);
  });
});
