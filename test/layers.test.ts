import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { repoPath } from './support/engine-fixtures.ts';

/**
 * The layers and what each may import from the project, bottom up: the domain in shared/, the edges that read files
 * (io/) and speak to AWS (aws/), the Lambda handlers and the CLI that wire them, and the CDK app that deploys the
 * handlers as assets (so it names their entry files, but never imports their code).
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  shared: ['shared'],
  io: ['shared', 'io'],
  aws: ['shared', 'aws'],
  functions: ['shared', 'io', 'aws', 'functions'],
  cli: ['shared', 'io', 'aws', 'cli'],
  infra: ['shared', 'io', 'aws', 'infra'],
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
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file) => {
      const path = join(root, file);
      return { file: relative(repoPath('.'), path), text: readFileSync(path, 'utf8') };
    });
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
    ];

    expect(crossings('shared', sources.slice(0, 2))).toHaveLength(2);
    expect(crossings('infra', sources.slice(2, 3))).toEqual([
      'infra/tripwires.ts imports ../functions/tripwire/tripwire-event.ts (functions/)',
    ]);
    expect(crossings('shared', sources.slice(3))).toEqual([]);
  });
});
