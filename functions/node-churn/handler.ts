import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import middy from '@middy/core';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbNodeChurnLedger } from '../../aws/dynamodb/node-churn-ledger.ts';
import { ec2Clients } from '../../aws/ec2/clients.ts';
import { Ec2InstanceDirectory } from '../../aws/ec2/instance-directory.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { nodeClusters } from '../../shared/churn/node-termination.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { explainInvalidEvent } from '../invalid-event.ts';
import { logger } from '../powertools.ts';
import { handleNodeEvent, type NodeEvent, type NodeEventReport, nodeEventSchema } from './node-event.ts';

// A function of its own: a node event must not wait behind a poll, and a burst of them (a spot wave, a repair storm)
// must not hold one back.
const { config } = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const ledger = new DynamoDbNodeChurnLedger(documentClient(), requiredEnv('SENTINEL_TABLE'));
const directory = new Ec2InstanceDirectory(ec2Clients(requiredEnv('SENTINEL_OPS_ACCOUNT')));
// A cluster whose account or Region the configuration leaves unset matches an event from any account or Region.
const clusters = nodeClusters(config.clusters, config.ops);

/** An Auto Scaling or EC2 event about a node: merged into its instance's record, and counted once it terminates. */
export const handler = middy<NodeEvent, NodeEventReport | undefined>()
  .use(injectLambdaContext(logger))
  .use(explainInvalidEvent())
  .use(parser({ schema: nodeEventSchema }))
  .handler((event) => handleNodeEvent({ ledger, directory, clusters, now: Date.now, logger }, event));
