// The workflows a worker registers.
export { agentWorkflow } from './agent';
export { designWorkflow } from './designs';
