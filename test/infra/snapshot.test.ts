import { Template } from 'aws-cdk-lib/assertions';
import { synthSentinelApp } from './synth-sentinel-app.ts';

/** Asset hashes change with every edit of the functions; the snapshot is about the infrastructure around them. */
const ASSET_HASH = /[a-f0-9]{64}/g;

function scrubbed(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(ASSET_HASH, '[ASSET HASH]'));
}

it('synthesizes the templates last reviewed', () => {
  const synth = synthSentinelApp({ bundle: false });
  try {
    expect(scrubbed(Template.fromStack(synth.ops).toJSON())).toMatchSnapshot('OpsStack');
    expect(synth.source && scrubbed(Template.fromStack(synth.source).toJSON())).toMatchSnapshot('SourceAccountStack');
  } finally {
    synth.dispose();
  }
});
