import type { BenchResults } from '../report.ts';
import { table } from './markdown.ts';

/** The goals, measured, that open the results. */
export function goalsSection(results: BenchResults): string[] {
  return [
    '## Goals',
    '',
    table(
      ['goal', 'measured', 'met'],
      results.goals.map((g) => [g.goal, g.measured, g.met ? 'yes' : '**no**']),
    ),
    '',
  ];
}
