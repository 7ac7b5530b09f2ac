import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import { type CommandOutput, withProgress } from '../../cli/command.ts';

/** An output that takes progress, as stderr at a terminal does. */
function terminal() {
  const lines: string[] = [];
  const output: CommandOutput = { stdout: () => {}, stderr: () => {}, progress: (line) => lines.push(line) };
  return { output, lines };
}

describe('progress of a long piece of work', () => {
  it('says the count every interval while the work runs, only when it moved, and where it ended', async () => {
    const { output, lines } = terminal();
    let done = 0;
    const work = (async () => {
      for (; done < 3; done++) await sleep(60);
      await sleep(60);
      return 'result';
    })();

    const result = await withProgress(output, () => `looked up ${done} of 3`, work, 20);

    expect(result).toBe('result');
    // Each count once, however many intervals it lasted, and the whole count last.
    expect(lines).toEqual([...new Set(lines)]);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.at(-1)).toBe('looked up 3 of 3');
  });

  it('says nothing of work shorter than the interval', async () => {
    const { output, lines } = terminal();

    await withProgress(output, () => 'looked up 1 of 1', sleep(5), 1_000);

    expect(lines).toEqual([]);
  });

  it('says nothing where the output takes no progress, as when stderr is a file or a pipe', async () => {
    const described: string[] = [];
    const output: CommandOutput = { stdout: () => {}, stderr: () => {} };

    const line = () => {
      described.push('asked');
      return 'line';
    };

    const result = await withProgress(output, line, sleep(50, 'result'), 5);

    expect(result).toBe('result');
    expect(described).toEqual([]);
  });

  it('stops saying anything once the work failed, and passes the failure on', async () => {
    const { output, lines } = terminal();

    await expect(
      withProgress(
        output,
        () => `line ${lines.length}`,
        sleep(50).then(() => Promise.reject(new Error('refused'))),
        10,
      ),
    ).rejects.toThrow('refused');
    const said = lines.length;
    await sleep(40);

    expect(lines).toHaveLength(said);
  });
});
