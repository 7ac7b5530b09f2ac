import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from './support/engine-fixtures.ts';

/** What keeps `npm run test:unit` quick: no unit test file starts any of these, itself or through test/ helpers. */
const SLOW = [
  ['dynalite', /^dynalite$|support\/aws-harness\.ts$/],
  ['a loopback server', /support\/[a-z-]*server\.ts$/],
  ['a CDK synth', /^aws-cdk-lib|^cdk-nag$|\/infra\//],
  ['a child process', /^node:child_process$/],
] as const;

/** Import and export statements at the start of a line, and dynamic imports; not an import quoted in a string. */
const IMPORT =
  /^(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]/gm;

const { INTEGRATION_TESTS } = (await import(join(REPO_ROOT, 'jest.config.js'))) as { INTEGRATION_TESTS: string[] };

const testFiles = readdirSync(join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => join(REPO_ROOT, 'test', file))
  .sort();

/** Everything a file imports, following the imports of the helpers under test/ it uses. */
function importsOf(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap(([, from, bare, dynamic]) => {
    const specifier = from ?? bare ?? dynamic ?? '';
    if (!specifier.startsWith('.')) return [specifier];
    const target = join(dirname(file), specifier);
    const underTest = !relative(join(REPO_ROOT, 'test'), target).startsWith('..');
    return [target, ...(underTest && target.endsWith('.ts') ? importsOf(target, seen) : [])];
  });
}

describe('the unit project', () => {
  const unitFiles = testFiles.filter((file) => !INTEGRATION_TESTS.some((pattern) => new RegExp(pattern).test(file)));

  it('holds most test files', () => {
    expect(unitFiles.length).toBeGreaterThan(testFiles.length / 2);
  });

  it('starts no dynalite, loopback server, CDK synth or child process; jest.config.js lists the files that do', () => {
    const slow = unitFiles.flatMap((file) =>
      SLOW.filter(([, pattern]) => importsOf(file).some((target) => pattern.test(target))).map(
        ([what]) => `${relative(REPO_ROOT, file)} starts ${what}`,
      ),
    );

    expect(slow).toEqual([]);
  });
});
