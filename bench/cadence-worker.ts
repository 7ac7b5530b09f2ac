/**
 * A child of bench/cadence-options.ts: replays the corpus with the cadences it is given, with the default rules, and
 * prints one JSON line, their CadenceOptions.
 */
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { type CadenceChoice, type CorpusSource, measureCadenceOption } from './cadence-options.ts';
import { loadCorpus } from './detection-quality.ts';

const { source, quietWeek, choices } = JSON.parse(process.argv[2] ?? '{}') as {
  source: CorpusSource;
  quietWeek: string;
  choices: CadenceChoice[];
};
const corpus = (await loadCorpus(source.dir)).filter((s) => source.names.includes(s.name));
const ruleSet = compileRuleSet([], 'rules');
const options = [];
for (const choice of choices) options.push(await measureCadenceOption(ruleSet, corpus, quietWeek, choice));
console.log(JSON.stringify(options));
