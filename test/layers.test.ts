import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { repoPath } from './support/engine-fixtures.ts';

/**
 * The layers and what each may import from the project, bottom up: the domain in shared/, the edges that read files
 * (io/) and speak to AWS (aws/), the Lambda handlers and the CLI that wire them, and the CDK app that deploys the
 * handlers as assets (so it names their entry files, but never imports their code).
 *
 * Then the tooling: support/ is the kit the tests and the benchmark share (loopback AWS servers, harnesses, the
 * synthesized app, the generated fleet); test/ may import every layer and support/, but not bench/, so a change to
 * the benchmark never breaks a test; bench/ may import every layer and support/, but nothing of test/.
 */
const PRODUCT = ['shared', 'io', 'aws', 'functions', 'cli', 'infra'];
const MAY_IMPORT: Record<string, readonly string[]> = {
  shared: ['shared'],
  io: ['shared', 'io'],
  aws: ['shared', 'aws'],
  functions: ['shared', 'io', 'aws', 'functions'],
  cli: ['shared', 'io', 'aws', 'cli'],
  infra: ['shared', 'io', 'aws', 'infra'],
  support: [...PRODUCT, 'support'],
  test: [...PRODUCT, 'support', 'test'],
  bench: [...PRODUCT, 'support', 'bench'],
};

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The project folder a relative import from `file` lands in. */
function layerOf(file: string, specifier: string): string {
  return normalize(join(dirname(file), specifier)).split(/[\\/]/)[0] ?? '';
}

function crossings(layer: string, sources: readonly { file: string; text: string }[]): string[] {
  const allowed = MAY_IMPORT[layer] ?? [];
  return sources.flatMap(({ file, text }) =>
    [...text.matchAll(SPECIFIER)]
      .map((match) => match[1] ?? '')
      .filter((specifier) => !allowed.includes(layerOf(file, specifier)))
      .map((specifier) => `${file} imports ${specifier} (${layerOf(file, specifier)}/)`),
  );
}

function sourcesOf(layer: string) {
  const root = repoPath(layer);
  return (
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => ({ file, path: join(root, file) }))
      // This file's own examples below are strings, not imports.
      .filter(({ path }) => relative(repoPath('.'), path) !== 'test/layers.test.ts')
      .map(({ file }) => file)
      .sort()
      .map((file) => {
        const path = join(root, file);
        return { file: relative(repoPath('.'), path), text: readFileSync(path, 'utf8') };
      })
  );
}

describe('the layers', () => {
  it.each(Object.keys(MAY_IMPORT))('%s/ imports only from the layers beneath it', (layer) => {
    const sources = sourcesOf(layer);

    expect(sources.length).toBeGreaterThan(0);
    expect(crossings(layer, sources)).toEqual([]);
  });

  it('catches a relative import that leaves its layer', () => {
    const sources = [
      { file: 'shared/engine/step.ts', text: "import { x } from '../../aws/clients.ts';" },
      { file: 'shared/engine/rule.ts', text: "const y = await import('../../functions/poller/handler.ts');" },
      { file: 'infra/tripwires.ts', text: "import { z } from '../functions/tripwire/tripwire-event.ts';" },
      { file: 'shared/engine/ok.ts', text: "import { w } from '../time.ts';" },
      { file: 'test/aws/fan-out-wire.test.ts', text: "import { v } from '../../bench/fleet-generator.ts';" },
      { file: 'bench/poll-footprint.ts', text: "import { u } from '../test/support/aws-harness.ts';" },
      { file: 'bench/poll-footprint.ts', text: "import { t } from '../support/aws-harness.ts';" },
    ];

    expect(crossings('shared', sources.slice(0, 2))).toHaveLength(2);
    expect(crossings('infra', sources.slice(2, 3))).toEqual([
      'infra/tripwires.ts imports ../functions/tripwire/tripwire-event.ts (functions/)',
    ]);
    expect(crossings('shared', sources.slice(3, 4))).toEqual([]);
    expect(crossings('test', sources.slice(4, 5))).toEqual([
      'test/aws/fan-out-wire.test.ts imports ../../bench/fleet-generator.ts (bench/)',
    ]);
    expect(crossings('bench', sources.slice(5))).toEqual([
      'bench/poll-footprint.ts imports ../test/support/aws-harness.ts (test/)',
    ]);
  });
});
