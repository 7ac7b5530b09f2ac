import { wrap } from '../../shared/digest/text-layout.ts';

describe('wrap', () => {
  it('keeps a URL whole on a line of its own, so that a mail client links all of it', () => {
    const url = `https://github.com/example-org/k8s-incident-sentinel/blob/main/docs/runbooks/${'x'.repeat(40)}.md`;

    expect(wrap(`Runbook: ${url}`, '  ', '  ', 60)).toEqual(['  Runbook:', `  ${url}`]);
  });

  it('splits a long word that is not a URL where the line ends', () => {
    expect(wrap('a'.repeat(25), '', '', 10)).toEqual(['aaaaaaaaaa', 'aaaaaaaaaa', 'aaaaa']);
  });
});
