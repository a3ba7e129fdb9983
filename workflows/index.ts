export { agentWorkflow } from './agent';
export { designWorkflow } from './designs';
