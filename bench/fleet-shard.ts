/**
 * A child process that plays one shard worker of the worst minute's fan-out: it reads the shard task on stdin,
 * reads and evaluates its clusters as functions/shard-worker does (CloudWatchMetricSource at a worker's share of the
 * quotas, evaluateShard), and prints one JSON line: the report, and its own CPU time, wall time and peak memory.
 */
import { readFileSync } from 'node:fs';
import { cloudWatchClients } from '../aws/clients.ts';
import { CloudWatchMetricSource, DATAPOINTS_PER_SECOND } from '../aws/cloudwatch/metric-source.ts';
import { MemoryShardFindings } from '../shared/pipeline/memory-shard-findings.ts';
import { evaluateShard, SHARD_WORKERS, type ShardReport, type ShardTask } from '../shared/pipeline/shards.ts';
import { FLEET_POLL_AT, fleetClusters, fleetPlan } from '../support/fleet-generator.ts';

export interface ShardFigures {
  readonly report: ShardReport;
  readonly clusters: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
}

const size = Number(process.argv[2]);
const task = JSON.parse(readFileSync(0, 'utf8')) as ShardTask;
const plan = fleetPlan(size);
const metrics = new CloudWatchMetricSource({
  clientFor: cloudWatchClients(process.env.AWS_REGION),
  clusters: fleetClusters(size),
  signals: plan.ruleSet.signals(),
  callsPerSecond: 40 / SHARD_WORKERS,
  datapointsPerSecond: {
    recent: DATAPOINTS_PER_SECOND.recent / SHARD_WORKERS,
    older: DATAPOINTS_PER_SECOND.older / SHARD_WORKERS,
  },
  now: () => FLEET_POLL_AT,
});
const started = performance.now();
const cpuBefore = process.cpuUsage();
const report = await evaluateShard({ plan, metrics, findings: new MemoryShardFindings() }, task);
const cpu = process.cpuUsage(cpuBefore);
const figures: ShardFigures = {
  report,
  clusters: task.full.length + task.minute.length,
  wallMs: performance.now() - started,
  cpuMs: (cpu.user + cpu.system) / 1000,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
};
console.log(JSON.stringify(figures));
