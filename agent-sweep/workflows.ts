// The workflows the sweep's agent worker registers: the agent loop, and the designs it is compared with.
export { agentWorkflow } from '../workflows/agent';
export { designWorkflow } from './designs';
