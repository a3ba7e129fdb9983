// The fixed order example across a deploy: at each point the worker dies and a worker of the next build
// takes the run over. Changed carelessly, the runs past the change stick on non-determinism; the same
// change behind patched() costs none, and so does the careless change deployed as a pinned version.
import { defineSweep } from '../../sweep';
import { orderSweep } from './sweep';

/** `npm run sweep -- --config examples/order/deploy.config.ts` */
export default defineSweep({
  ...orderSweep(true),
  name: 'order-deploy',
  rows: [
    {
      name: 'order-deploy-careless',
      label: 'order, fixed: next build reorders',
      nextBuild: require.resolve('./deploy/careless'),
      // A control: the careless change must show its damage, or the sweep cannot see any.
      control: true,
    },
    {
      name: 'order-deploy-patched',
      label: 'order, fixed: next build reorders, patched',
      nextBuild: require.resolve('./deploy/patched'),
    },
    // The careless change with Worker Versioning: pinned, each run finishes on the build that started
    // it; auto-upgrade, it moves to the next build and meets the change as an unversioned run does.
    {
      name: 'order-deploy-pinned',
      label: 'order, fixed: next build reorders, pinned',
      nextBuild: require.resolve('./deploy/careless'),
      versioning: 'pinned',
    },
    {
      name: 'order-deploy-auto-upgrade',
      label: 'order, fixed: next build reorders, auto-upgrade',
      nextBuild: require.resolve('./deploy/careless'),
      versioning: 'auto-upgrade',
      control: true,
    },
  ],
});
