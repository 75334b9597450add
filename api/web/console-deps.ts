/** The support, news and quiz services' dependencies the staff console's operations use (./console.ts), built once per dashboard process. */
import type { Infra } from '../shared/infra';
import { makeNewsDeps, type NewsDeps } from '../news/deps';
import { makeQuizDeps, type QuizDeps } from '../quiz/deps';
import { makeSupportDeps, type SupportDeps } from '../support/deps';

export interface ConsoleDeps {
  support: SupportDeps;
  news: NewsDeps;
  quiz: QuizDeps;
}

export function makeConsoleDeps(infra: Infra): ConsoleDeps {
  return { support: makeSupportDeps(infra), news: makeNewsDeps(infra), quiz: makeQuizDeps(infra) };
}
