// The workflows an agent worker registers.
export { agentWorkflow } from './agent';
