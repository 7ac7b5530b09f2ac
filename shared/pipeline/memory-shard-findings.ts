import type { ShardFindings, ShardReport } from './shards.ts';

/** Shard reports in memory, for tests of the fan-out. */
export class MemoryShardFindings implements ShardFindings {
  private readonly reports = new Map<string, ShardReport>();

  async report(report: ShardReport): Promise<void> {
    const key = `${report.at}#${report.shard}`;
    if (!this.reports.has(key)) this.reports.set(key, report);
  }

  async reportsOf(at: number, shards: number): Promise<ShardReport[]> {
    return Array.from({ length: shards }, (_, shard) => this.reports.get(`${at}#${shard}`)).filter(
      (r) => r !== undefined,
    );
  }
}
