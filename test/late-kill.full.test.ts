// A kill that comes late, as on a busy machine where a batch waits long for its last runs to park: the
// run parked first waits in a live worker past its activity's timeout, and the server hands the retries
// back to that worker, where they park too and spend the call's attempts. Reproduced here on purpose
// (`lateKillMs`), on a real dev server, real worker processes and the slow tracker: the scenario is an
// error naming the attempts the parked worker took, never damage counted. In `npm run test:full`: each
// test sweeps one scenario whose kill waits 25 or 45 s.
import { agentSuite } from '../agent-sweep/agent-suite';
import { runSweep } from '../sweep/engine/passes';
import { selectRows } from '../agent-sweep/rows';

/** One scenario of `row`, killed at the clean run's `point`-th point `lateKillMs` after it parked, never run again. */
async function sweptLate(row: string, point: number, lateKillMs: number) {
  const report = await runSweep({
    suite: agentSuite(selectRows(row)),
    twice: false,
    scenario: String(point),
    reruns: 0,
    lateKillMs,
  });
  const [scenario] = report.scenarios;
  return { scenario: scenario!, row: report.rows[0]!, landed: scenario!.landed.map((p) => `${p.name} ${p.detail}`) };
}

test("a lookup whose five attempts a parked worker spent while the batch's kill came late: the scenario errs, and the table counts no question", async () => {
  // 'keyless + lookup: waits out the deadline', killed as its first lookup has answered (point 10):
  // the parked attempt times out after 4 s, and its four retries go to the same live worker. A kill
  // 25 s late leaves the lookup none: without the audit, the run asks a person (asks 1, golden 0).
  const { scenario, row, landed } = await sweptLate('agent-slow-keyless', 10, 25_000);
  expect(landed).toEqual(['lookup.returned create_issue call_create_1']);
  expect(scenario.error).toMatch(
    /^not caused by a kill: lookupCall ran out of attempts at event \d+ after a parked worker, waiting for its kill, took 4 of them \(attempt 2, 3, 4, 5\): the kill came after the call's timeout$/,
  );
  // An erred scenario counts in no column: the row shows no question to a person.
  expect(row).toMatchObject({ errors: 1, asks: 0 });
}, 300_000);

test("a keyed call whose ten attempts a parked worker spent while the batch's kill came late: the scenario errs, never stuck or missing in the table", async () => {
  // 'keyed: 409 while the key is in flight', killed as its first attempt starts (point 7): the parked
  // attempt times out after 4 s and its nine retries go to the same live worker. A kill 45 s late leaves
  // the call none, as on the loaded machine where this row once counted 2 missing and 1 stuck.
  const { scenario, row, landed } = await sweptLate('agent-slow', 7, 45_000);
  expect(landed).toEqual(['tool.started create_issue call_create_1']);
  expect(scenario.error).toMatch(
    /after a parked worker, waiting for its kill, took \d+ (of them|attempt\(s\) of its calls)/,
  );
  expect(row).toMatchObject({ errors: 1, missing: 0, dups: 0, stuck: 0 });
}, 300_000);
