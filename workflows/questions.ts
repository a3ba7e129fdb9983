// The person's questions: "did this call happen?", each with an id an answer must name.
import { condition, patched, setHandler } from '@temporalio/workflow';
import { EARLY_KEPT, readAnswer, refusalLog } from './signal-input';
import {
  resolveSignal,
  resolveUpdate,
  setJudgedUpdate,
  SIGNAL_INPUT_PATCH,
  SIGNALS_BOUNDED_PATCH,
  type AnswerTaken,
  type ResolveSignal,
} from './signals';
import { crashPoints } from '../common/crash-sink';
import type { OpenItem, QuestionsState, RefusedAnswer } from './types';

/** The id of the `n`th question about a call: an answer names the question it answers. */
export function questionId(callId: string, n: number): string {
  return `${callId}#${n}`;
}

/** The call and number a question id names, or `null` if it is not one. */
export function splitQuestionId(id: string): { callId: string; n: number } | null {
  const at = id.lastIndexOf('#');
  const n = Number(id.slice(at + 1));
  return at > 0 && Number.isInteger(n) && n > 0 ? { callId: id.slice(0, at), n } : null;
}

/** What `judgeAnswer` looks at: the open questions, those with an answer, and how many were asked per call. */
export interface QuestionBook {
  open: ReadonlyMap<string, unknown>;
  answered: ReadonlyMap<string, unknown>;
  askedAbout: ReadonlyMap<string, number>;
}

/**
 * Why an answer naming `questionId` must be refused, or `null` to take it. Taken: an answer to an open
 * question, or to the next question about a call, which a worker that died while asking it may have
 * shown before a restart asks it again. Refused: a second answer, an answer to a question already
 * settled, to one never asked, or without a question id.
 */
export function judgeAnswer(questionId: unknown, book: QuestionBook): string | null {
  const q = typeof questionId === 'string' ? splitQuestionId(questionId) : null;
  if (!q) return `not a question id: ${JSON.stringify(questionId)}`;
  if (book.answered.has(questionId as string)) return 'the question already has an answer';
  if (book.open.has(questionId as string)) return null;
  const next = (book.askedAbout.get(q.callId) ?? 0) + 1;
  if (q.n === next) return null;
  return q.n < next ? 'the question was already settled' : 'no such question was asked';
}

/**
 * The last rung of the ladder: questions to a person ("did this call happen?") and their answers,
 * which arrive by the `resolve` signal. Call once per workflow run; it installs the signal handler.
 * `onChange` is called whenever a question opens or closes; `carried` is the state of the previous
 * run of a chain (continue-as-new).
 *
 * An answer is read exactly (`readAnswer`): one that is not an object with a `questionId` string and a
 * `happened` boolean is refused with the reason, and settles nothing. Each question has its own id
 * (the call id and the question's number for that call), and an answer counts only for the question
 * it names. An answer to a question already answered (a double submit, two operators) or never to be
 * asked is refused and kept in `refused()`, never stored for later: a stale "it did not happen" must
 * not answer the next question about the same call.
 */
export function personQuestions(onChange: () => void = () => {}, carried?: QuestionsState) {
  const open = new Map<string, OpenItem>();
  const answers = new Map<string, ResolveSignal>((carried?.early ?? []).map((a) => [a.questionId, a]));
  const askedAbout = new Map<string, number>(carried?.askedAbout ?? []);
  let asked = carried?.asked ?? 0;
  // Runs whose history predates the checks go on taking answers as they did (nothing malformed throws).
  const exact = patched(SIGNAL_INPUT_PATCH);
  const bounded = exact && patched(SIGNALS_BOUNDED_PATCH);
  const refusedAnswers = refusalLog<RefusedAnswer>(carried?.refused, carried?.refusedCount, bounded);
  /** Whether a question is not asked yet: an answer to it is held until it is. */
  const isAhead = (id: string) => {
    const q = splitQuestionId(id);
    return q !== null && q.n > (askedAbout.get(q.callId) ?? 0);
  };
  const early = () => [...answers.keys()].filter(isAhead).length;

  /** Whether the run takes an answer now, and why not: the same checks for the signal and the Update, changing nothing. */
  const judge = (answer: ResolveSignal): string | null => {
    const why = judgeAnswer(answer.questionId, { open, answered: answers, askedAbout });
    if (!why && bounded && !open.has(answer.questionId) && early() >= EARLY_KEPT)
      return `${EARLY_KEPT} answers already wait for questions not asked yet`;
    return why;
  };
  /** An answer read exactly and judged: taken, or refused with the reason. */
  const read = (value: unknown): { answer: ResolveSignal } | { refused: string; named: string; by?: string } => {
    const exactly = readAnswer(value, { capped: bounded });
    if ('refused' in exactly) return exactly;
    const why = judge(exactly.ok);
    return why ? { refused: why, named: exactly.ok.questionId, by: exactly.ok.by } : { answer: exactly.ok };
  };
  const take = (answer: ResolveSignal): AnswerTaken => {
    const asked = open.has(answer.questionId);
    answers.set(answer.questionId, answer);
    return {
      questionId: answer.questionId,
      happened: answer.happened,
      taken: asked ? 'answered' : 'held until the question is asked',
    };
  };

  setHandler(resolveSignal, (value: unknown) => {
    if (!exact) {
      if (typeof value !== 'object' || value === null) return;
      const answer = value as ResolveSignal;
      const why = judge(answer);
      if (why) refusedAnswers.add({ questionId: String(answer.questionId), by: answer.by, why });
      else answers.set(answer.questionId, answer);
      return;
    }
    const judged = read(value);
    if ('refused' in judged)
      refusedAnswers.add({ questionId: judged.named, ...(judged.by ? { by: judged.by } : {}), why: judged.refused });
    else take(judged.answer);
  });
  // The Update: refused in its validator (no event, nothing kept), or taken and answered at once.
  if (bounded)
    setJudgedUpdate<AnswerTaken, ResolveSignal, { answer: ResolveSignal }>(resolveUpdate, read, (judged) =>
      take(judged.answer),
    );

  return {
    /** Questions waiting for an answer, for the `pending` query. */
    open: () => [...open.values()],
    /** Questions asked so far. */
    asked: () => asked,
    /** Answers refused (malformed, over a cap, or their question not open): the newest, in a run since the caps. */
    refused: () => refusedAnswers.list(),
    /** How many answers were refused in all. */
    refusedCount: () => refusedAnswers.count(),
    /**
     * What the next run of a chain needs (between turns, when no question is open): how many questions
     * each call had, so a stale answer is still refused, and answers to questions not yet asked.
     */
    snapshot: (): QuestionsState => ({
      asked,
      askedAbout: [...askedAbout.entries()],
      early: [...answers.values()].filter((a) => isAhead(a.questionId)),
      refused: refusedAnswers.list(),
      ...(bounded ? { refusedCount: refusedAnswers.count() } : {}),
    }),
    /** Asks about one call and waits for the answer. */
    async ask(item: Omit<OpenItem, 'questionId'>): Promise<ResolveSignal> {
      asked += 1;
      const n = (askedAbout.get(item.callId) ?? 0) + 1;
      askedAbout.set(item.callId, n);
      const id = questionId(item.callId, n);
      open.set(id, { ...item, questionId: id });
      onChange();
      crashPoints.reached('question.asked', `${item.tool} ${id}`);
      await condition(() => answers.has(id));
      open.delete(id);
      onChange();
      return answers.get(id)!;
    },
  };
}
