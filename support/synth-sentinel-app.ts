import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, type Environment } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { buildSentinelApp, type SentinelAppOptions, type SentinelStacks } from '../infra/sentinel-app.ts';
import { PROJECT_ROOT } from '../infra/sentinel-function.ts';

/** A file under support/fixtures: configurations made for the tests and the benchmark. */
export const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** A configuration made for these tests: linked accounts, cluster filters, a secret endpoint, a custom profile. */
export const TEST_CONFIG = fixture('sentinel.test.json');

export const EXAMPLE_CONFIG = path.join(PROJECT_ROOT, 'config/sentinel.example.json');

export const TEST_ENV = { account: '111122223333', region: 'eu-west-1' } satisfies Environment;

/** An OpsStack's SinkArn output in TEST_ENV, as `-c sinkArn=...` passes it to the SourceAccountStack. */
export const SINK_ARN = 'arn:aws:oam:eu-west-1:111122223333:sink/8a2b1c3d-0000-4000-8000-1234567890ab';

export interface AppOptions {
  /**
   * Run esbuild for the functions (default). Tests that do not look at the bundles skip it: the templates are the
   * same but for the asset hashes.
   */
  readonly bundle?: boolean;
  /**
   * Run CDK's built-in CloudFormation template validation, as `cdk synth` does (default: off). It compiles an 8.8 MB
   * WebAssembly module, which costs about 7 s on the first synth of every test file; it reports through the
   * validation report and annotations, and only cdk-nag.test.ts reads those.
   */
  readonly validation?: boolean;
}

export interface SynthOptions extends Partial<SentinelAppOptions>, AppOptions {}

export interface SynthesizedSentinelApp extends SentinelStacks {
  readonly app: App;
  readonly assembly: CloudAssembly;
  /** Removes the temporary cloud assembly. */
  readonly dispose: () => void;
}

/** The context `cdk synth` runs with (feature flags), so tests see the templates the CLI would. */
export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
}

/** A new app with cdk.json's context, writing into a new temporary directory (under `parent`, when given). */
export function newApp(options: AppOptions & { parent?: string } = {}): App {
  return new App({
    outdir: mkdtempSync(path.join(options.parent ?? tmpdir(), 'sentinel-cdk-')),
    context: { ...cdkJsonContext(), ...(options.bundle === false && { 'aws:cdk:bundling-stacks': [] }) },
    builtinCloudFormationValidation: options.validation ?? false,
  });
}

/** Build and synthesize the app; bundling runs the locally installed esbuild. */
export function synthSentinelApp(options: SynthOptions = {}): SynthesizedSentinelApp {
  const { bundle, validation, ...appOptions } = options;
  const app = newApp({ bundle, validation });
  const stacks = buildSentinelApp(app, { configFile: TEST_CONFIG, credentials: TEST_ENV, ...appOptions });
  const assembly = app.synth();
  return { app, assembly, ...stacks, dispose: () => rmSync(assembly.directory, { recursive: true, force: true }) };
}
