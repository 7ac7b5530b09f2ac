import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from '../support/engine-fixtures.ts';

/**
 * What the pure engine may not reach for: AWS, Lambda middleware and Powertools, infrastructure code, the file system,
 * the network.
 */
const FORBIDDEN = [
  /^@aws-sdk\//,
  /^@aws-lambda-powertools\//,
  /^@middy\//,
  /^aws-cdk-lib(\/|$)/,
  /^(node:)?fs(\/|$)/,
  /^(node:)?https?(\/|$)/,
];

/** Static imports, re-exports, side-effect imports, dynamic imports and requires. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

const SHARED = repoPath('shared');
const SOURCES = readdirSync(SHARED, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .sort()
  .map((file) => ({ file: `shared/${file}`, text: readFileSync(join(SHARED, file), 'utf8') }));

describe('the engine in shared/', () => {
  it('has TypeScript sources to check', () => {
    expect(SOURCES.map((s) => s.file)).toEqual(
      expect.arrayContaining(['shared/engine/step.ts', 'shared/scenario/replay.ts', 'shared/errors.ts']),
    );
  });

  it('imports no AWS SDK, Powertools, Middy, CDK, file system or HTTP module', () => {
    const offending = SOURCES.flatMap(({ file, text }) =>
      [...text.matchAll(SPECIFIER)]
        .map((match) => match[1] ?? '')
        .filter((specifier) => FORBIDDEN.some((pattern) => pattern.test(specifier)))
        .map((specifier) => `${file} imports ${specifier}`),
    );

    expect(offending).toEqual([]);
  });

  it('reads no environment variable', () => {
    const offending = SOURCES.filter(({ text }) =>
      /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"]env['"]\s*\]/.test(text),
    ).map(({ file }) => file);

    expect(offending).toEqual([]);
  });

  it('recognises every form of import it forbids', () => {
    const sample = [
      "import { S3Client } from '@aws-sdk/client-s3';",
      "import middy from '@middy/core';",
      "import { Logger } from '@aws-lambda-powertools/logger';",
      "export { Stack } from 'aws-cdk-lib';",
      "import 'node:fs/promises';",
      "const http = await import('node:http');",
      "const fs = require('fs');",
    ].join('\n');

    const caught = [...sample.matchAll(SPECIFIER)]
      .map((match) => match[1] ?? '')
      .filter((specifier) => FORBIDDEN.some((pattern) => pattern.test(specifier)));

    expect(caught).toHaveLength(7);
  });
});
