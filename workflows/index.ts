export { agentWorkflow } from './agent';
