/**
 * What the functions write to stdout and stderr while captured, as CloudWatch Logs would receive it: Powertools'
 * Logger and Metrics write there through a Console of their own, past any spy on the global `console`.
 */
export interface CapturedOutput {
  /** Every line written so far that is a JSON object: log lines and EMF metric lines. */
  readonly json: () => Record<string, unknown>[];
  readonly bytes: () => number;
  /** Stop capturing: writes reach the terminal again. */
  readonly restore: () => void;
}

export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
  }
  return {
    json: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    bytes: () => chunks.reduce((n, chunk) => n + Buffer.byteLength(chunk), 0),
    restore: () => {
      streams.forEach((stream, index) => {
        stream.write = writes[index] as typeof stream.write;
      });
    },
  };
}
