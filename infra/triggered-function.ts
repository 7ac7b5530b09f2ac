import { Construct } from 'constructs';
import { SentinelFunction, type SentinelFunctionProps } from './sentinel-function.ts';

/**
 * A function and the triggers that invoke it, as one construct. The function is its child `Default`, which CDK leaves
 * out of logical ids (https://docs.aws.amazon.com/cdk/v2/guide/identifiers.html#identifiers-logical-ids): the function,
 * its role and its log group keep the ids they had as children of the stack, so moving them in here replaces nothing.
 */
export abstract class TriggeredFunction extends Construct {
  readonly function: SentinelFunction;

  protected constructor(scope: Construct, id: string, props: SentinelFunctionProps) {
    super(scope, id);
    this.function = new SentinelFunction(this, 'Default', props);
  }
}
