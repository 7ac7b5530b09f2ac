/**
 * Node events as AWS documents them, for the wire tests and the benchmark: Auto Scaling's instance termination events
 * (https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-event-reference.html) and EC2's state changes,
 * spot interruption warnings and rebalance recommendations.
 */
export const NODE_EVENTS_ACCOUNT = '111122223333';
const OPS = NODE_EVENTS_ACCOUNT;
export const iso = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z');

let sequence = 0;
const envelope = (source: string, detailType: string, at: number, detail: object, resources: string[] = []) => ({
  version: '0',
  id: `event-${++sequence}`,
  'detail-type': detailType,
  source,
  account: OPS,
  time: iso(at),
  region: 'eu-west-1',
  resources,
  detail,
});
/** Auto Scaling's `EC2 Instance-terminate Lifecycle Action`, as the Auto Scaling event reference shows it. */
export const lifecycleAction = (group: string, instance: string, at: number) =>
  envelope('aws.autoscaling', 'EC2 Instance-terminate Lifecycle Action', at, {
    LifecycleActionToken: '87654321-4321-4321-4321-210987654321',
    AutoScalingGroupName: group,
    LifecycleHookName: 'Terminate-LC-Hook',
    EC2InstanceId: instance,
    LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
    Origin: 'AutoScalingGroup',
    Destination: 'EC2',
  });
/** Auto Scaling's `EC2 Instance Terminate Successful`. */
export const terminateSuccessful = (group: string, instance: string, started: number, ended: number, cause: string) =>
  envelope('aws.autoscaling', 'EC2 Instance Terminate Successful', ended, {
    StatusCode: 'InProgress',
    Description: `Terminating EC2 instance: ${instance}`,
    AutoScalingGroupName: group,
    ActivityId: '87654321-4321-4321-4321-210987654321',
    Details: { 'Availability Zone': 'eu-west-1b', 'Subnet ID': 'subnet-12345678' },
    RequestId: '12345678-1234-1234-1234-123456789012',
    StatusMessage: '',
    EndTime: iso(ended),
    EC2InstanceId: instance,
    StartTime: iso(started),
    Cause: cause,
    Origin: 'AutoScalingGroup',
    Destination: 'EC2',
  });
/** EC2's `EC2 Instance State-change Notification`: the instance and its state, no tags. */
export const stateChange = (instance: string, state: string, at: number) =>
  envelope('aws.ec2', 'EC2 Instance State-change Notification', at, { 'instance-id': instance, state }, [
    `arn:aws:ec2:eu-west-1:${OPS}:instance/${instance}`,
  ]);
export const spotWarning = (instance: string, at: number) =>
  envelope('aws.ec2', 'EC2 Spot Instance Interruption Warning', at, {
    'instance-id': instance,
    'instance-action': 'terminate',
  });
export const rebalance = (instance: string, at: number) =>
  envelope('aws.ec2', 'EC2 Instance Rebalance Recommendation', at, { 'instance-id': instance });

export const unhealthyCause = (at: number) =>
  `At ${iso(at)} an instance was taken out of service in response to an EC2 health check indicating it has been terminated or stopped.`;
export const elbCause = (at: number) =>
  `At ${iso(at)} an instance was taken out of service in response to an ELB system health check failure.`;
export const scaleInCause = (at: number) =>
  `At ${iso(at)} a user request update of AutoScalingGroup constraints to min: 0, max: 10, desired: 4 changing the desired capacity from 5 to 4.  At ${iso(at)} an instance was taken out of service in response to a difference between desired and actual capacity, shrinking the capacity from 5 to 4.`;

export const karpenterTags = (cluster: string) => ({
  Name: 'ip-10-0-1-23.eu-west-1.compute.internal',
  'karpenter.sh/nodepool': 'default',
  'karpenter.sh/nodeclaim': 'default-abcde',
  'karpenter.k8s.aws/ec2nodeclass': 'default',
  [`kubernetes.io/cluster/${cluster}`]: 'owned',
  'eks:eks-cluster-name': cluster,
});
