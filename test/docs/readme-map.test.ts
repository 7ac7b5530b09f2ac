import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from '../support/engine-fixtures.ts';

/** The folders whose every subfolder the README's map must name: the code a newcomer follows a poll through. */
const MAPPED = ['shared', 'aws', 'infra', 'functions', 'cli'];

/**
 * The folders the README's "How it is built" names: the entries of its text block, one a line, a folder written
 * `name/` at two spaces of indent per level, followed by at least two spaces and what it holds.
 */
function mappedFolders(readme: string): Set<string> {
  const section = readme.split('\n## How it is built\n')[1]?.split('\n## ')[0] ?? '';
  const block = section.split('```text\n')[1]?.split('```')[0] ?? '';
  const folders = new Set<string>();
  const parents: string[] = [];
  for (const line of block.split('\n')) {
    const entry = /^((?: {2}){0,3})([a-z][\w.-]*)\/\s{2,}\S/.exec(line);
    if (!entry) continue;
    const depth = (entry[1] ?? '').length / 2;
    parents.length = depth;
    parents.push(entry[2] ?? '');
    folders.add(parents.join('/'));
  }
  return folders;
}

function foldersUnder(root: string): string[] {
  return readdirSync(repoPath(root), { recursive: true, encoding: 'utf8' })
    .filter((path) => statSync(repoPath(join(root, path))).isDirectory())
    .map((path) => `${root}/${path.split('\\').join('/')}`);
}

describe("the README's map", () => {
  const map = mappedFolders(readFileSync(repoPath('README.md'), 'utf8'));

  it.each(MAPPED)('names every folder of %s/', (root) => {
    const folders = [root, ...foldersUnder(root)];

    expect(folders.filter((folder) => !map.has(folder))).toEqual([]);
  });

  it('names no folder that is not in the tree', () => {
    expect([...map].filter((folder) => !existsSync(repoPath(folder)))).toEqual([]);
  });

  it('reads nested entries by their indent and skips the lines that go on describing one', () => {
    const readme = [
      '# x',
      '## How it is built',
      '```text',
      'shared/            the domain',
      '  engine/          rules and',
      '                   more/ words that go on',
      '    stages/        one stage a file',
      '  pipeline/        the poll',
      'aws/               adapters',
      '```',
      '## Next',
      '```text',
      'elsewhere/         not the map',
      '```',
    ].join('\n');

    expect([...mappedFolders(readme)]).toEqual([
      'shared',
      'shared/engine',
      'shared/engine/stages',
      'shared/pipeline',
      'aws',
    ]);
  });
});
