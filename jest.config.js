/** Jest runs the TypeScript sources as native ESM, transformed by SWC (no type-check: `tsc --noEmit` does that). */
const esmTypeScript = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' } }],
  },
};

/**
 * Test files that start dynalite, a loopback server, a CDK synth or a child process. Every other test file is a unit
 * test: plain values, scenario files and the pure engine, run by `npm run test:unit` in seconds
 * (test/unit-project.test.ts fails when one of them starts any of those).
 */
export const INTEGRATION_TESTS = [
  '/test/aws/[^/]+\\.test\\.ts$',
  '/test/infra/[^/]+\\.test\\.ts$',
  '/test/cli/aws-commands\\.test\\.ts$',
  '/test/cli/doctor\\.test\\.ts$',
  '/test/cli/doctor-kind\\.test\\.ts$',
  '/test/cli/doctor-fleet\\.test\\.ts$',
  '/test/cli/doctor-eks-fleet\\.test\\.ts$',
  '/test/cli/incidents\\.test\\.ts$',
  '/test/cli/sentinel-bin\\.test\\.ts$',
  '/test/docs/hint-commands\\.test\\.ts$',
  '/test/loopback-servers\\.test\\.ts$',
];

export default {
  projects: [
    { ...esmTypeScript, displayName: 'unit', testMatch: ['**/*.test.ts'], testPathIgnorePatterns: INTEGRATION_TESTS },
    { ...esmTypeScript, displayName: 'integration', testRegex: INTEGRATION_TESTS },
  ],
  testTimeout: 60000,
  // Jest's default keeps a core for itself, which on a two-core machine runs one test file at a time; its main
  // process only waits on the workers, and the test files are CPU-bound.
  maxWorkers: '100%',
  // A worker keeps what the test files it ran left on its heap (their module registries, fleets of 10,000 clusters);
  // past this it is replaced after its file, so that a late file neither runs short of heap nor measures another's.
  workerIdleMemoryLimit: '1GB',
};
