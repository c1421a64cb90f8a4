// The docs are a map a maintainer navigates: every page is listed in docs/README.md, and every
// relative link between pages (and to a heading of a page) resolves. A page moved or renamed
// without its links fails here rather than leaving readers at a dead end.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const docs = join(root, 'docs');
const pages = readdirSync(docs).filter((f) => f.endsWith('.md'));

// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

function links(file: string): Array<{ target: string; hash: string | undefined }> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((href) => !/^[a-z]+:/i.test(href) && !href.startsWith('#') && /\.md(#|$)/.test(href))
    .map((href) => {
      const [target, hash] = href.split('#');
      return { target: resolve(dirname(file), target!), hash };
    });
}

describe('docs', () => {
  it('lists every page in docs/README.md', () => {
    const index = readFileSync(join(docs, 'README.md'), 'utf8');
    const unlisted = pages.filter((p) => p !== 'README.md' && !index.includes(`](${p})`));
    expect(unlisted).toEqual([]);
  });

  it('has no broken relative link between pages or to a heading', () => {
    const broken: string[] = [];
    for (const file of [join(root, 'README.md'), ...pages.map((p) => join(docs, p))]) {
      for (const { target, hash } of links(file)) {
        if (!existsSync(target)) broken.push(`${file.slice(root.length + 1)} → ${target.slice(root.length + 1)}`);
        else if (hash && !anchors(target).has(hash))
          broken.push(`${file.slice(root.length + 1)} → ${target.slice(root.length + 1)}#${hash}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
