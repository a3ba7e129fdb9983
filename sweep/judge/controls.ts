// Controls: rows known to do damage, which must show some, or the sweep cannot see damage at all.
import { DAMAGE_COLUMNS, type DamageColumn } from './columns';
import type { Row } from './counting';

export { DAMAGE_COLUMNS, type DamageColumn } from './columns';

/**
 * What a row shows of damage, by its columns (only those of `only`, if given): `dups 32`,
 * `diverged 3`, `asks 40` (empty: none).
 */
export function damageOf(row: Row, only?: readonly DamageColumn[]): string[] {
  return DAMAGE_COLUMNS.filter(
    ([column, field]) => Number(row[field] ?? 0) > 0 && (!only || only.includes(column)),
  ).map(([, field, word]) => `${word} ${row[field]}`);
}

/** The verdict on a sweep's controls: each control row swept, and what it showed. */
export interface ControlVerdict {
  /** Every control row the sweep ran, with the damage it showed (empty: none). */
  controls: Array<{ name: string; label: string; damage: string[] }>;
  /** Why the sweep fails, one line per control that showed no damage (empty: it passes). */
  failures: string[];
}

/**
 * Judges a sweep's controls, as crash harnesses run a control adapter that must show damage: a row a
 * suite marks `control` is known to do damage under its faults (a loop without keys, a careless
 * deploy). If one shows none, the kills did not land where they hurt or the check cannot see what
 * they did, and every zero in the table proves nothing: the sweep fails with that reason.
 */
export function judgeControls(rows: readonly Row[]): ControlVerdict {
  const controls = rows.filter((r) => r.control).map((r) => ({ name: r.name, label: r.label, damage: damageOf(r) }));
  const failures = controls
    .filter((c) => c.damage.length === 0)
    .map(
      (c) =>
        `control ${c.name} (${c.label}) showed no damage: it is known to do damage under its faults, so this sweep ` +
        'cannot see damage (kills that missed, or a check that does not read what the runs did), and the zeros of the other rows prove nothing',
    );
  return { controls, failures };
}

/** The report's line on a sweep's controls. */
export function formatControls(verdict: ControlVerdict): string {
  if (verdict.controls.length === 0) return 'controls: none in this sweep (a row marked control must show damage)';
  const shown = verdict.controls.map((c) => `${c.name} ${c.damage.length > 0 ? c.damage.join(', ') : 'NONE'}`);
  return `controls (rows that must show damage): ${shown.join('; ')}`;
}
