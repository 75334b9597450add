import { dueQuizzes, hasEditions, parseQuizDate, previousEditionDay, quizDateOf, withinRecovery } from '../../models/quiz/calendar.rules';
import { addDays, isDate, localDate, weekday, WEEKDAYS } from '../../models/shared/calendar.rules';
import { streakOf } from '../../models/quiz/streak.rules';
import { composeEdition } from '../../ops/quiz-editions';

// 2026-11-23 is a Monday.
const MON = '2026-11-23';
const day = (offset: number) => addDays(MON, offset);

describe('quiz calendar', () => {
  it('reads calendar dates strictly and counts days across months and years', () => {
    expect(isDate('2026-02-28')).toBe(true);
    expect(isDate('2026-02-29')).toBe(false);
    expect(isDate('2026-11-23T00:00:00Z')).toBe(false);
    expect(isDate('0020-02-29')).toBe(true); // fuzzing found years under 100 read as 19xx
    expect(addDays('0020-03-01', -1)).toBe('0020-02-29');
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(WEEKDAYS[weekday(MON)]).toBe('Monday');
  });

  it('takes the day in São Paulo, not in UTC', () => {
    // 02:30 UTC on Tuesday is still Monday 23:30 in São Paulo (UTC−3).
    expect(localDate(new Date('2026-11-24T02:30:00Z'), 'America/Sao_Paulo')).toBe(MON);
    expect(localDate(new Date('2026-11-24T02:30:00Z'), 'UTC')).toBe('2026-11-24');
  });

  it('has editions and quizzes Monday to Saturday, morning and night, none on Sunday', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => hasEditions(day(i)))).toEqual([true, true, true, true, true, true, false]);
    expect(quizDateOf(day(5), 'night')).toBe('2026-11-28-night');
    expect(parseQuizDate('2026-11-28-night')).toEqual({ date: '2026-11-28', edition: 'night' });
    expect(parseQuizDate('2026-11-28')).toEqual({ date: '2026-11-28', edition: 'morning' });
    expect(parseQuizDate('2026-11-29')).toBeNull(); // a Sunday
    expect(parseQuizDate('2026-11-29-night')).toBeNull();
    expect(parseQuizDate('2026-11-31')).toBeNull();
  });

  it('generates each day the quizzes of the last edition day before it (the weekday table)', () => {
    const table = [0, 1, 2, 3, 4, 5, 6].map((i) => [WEEKDAYS[weekday(day(i))], dueQuizzes(day(i)).map((q) => `${WEEKDAYS[weekday(q.date)]} ${q.edition}`)]);
    expect(table).toEqual([
      ['Monday', ['Saturday morning', 'Saturday night']],
      ['Tuesday', ['Monday morning', 'Monday night']],
      ['Wednesday', ['Tuesday morning', 'Tuesday night']],
      ['Thursday', ['Wednesday morning', 'Wednesday night']],
      ['Friday', ['Thursday morning', 'Thursday night']],
      ['Saturday', ['Friday morning', 'Friday night']],
      ['Sunday', ['Saturday morning', 'Saturday night']],
    ]);
    expect(previousEditionDay(MON)).toBe('2026-11-21');
  });

  it('lets a quiz be taken on the three days after its date, Sundays counted', () => {
    const sat = day(-2);
    expect([-2, -1, 0, 1, 2].map((i) => withinRecovery(sat, day(i)))).toEqual([false, true, true, true, false]);
  });
});

describe('streaks', () => {
  it('counts consecutive edition days, jumping Sundays', () => {
    // Read Thursday to Saturday and Monday: Sunday does not break it.
    const s = streakOf([day(-4), day(-3), day(-2), MON], MON);
    expect(s).toMatchObject({ current: 4, longest: 4, lastReadDate: MON, missedRecoverable: [] });
  });

  it('keeps yesterday’s streak while today is unread, and breaks it once a day is missed', () => {
    expect(streakOf([day(-3), day(-2)], MON).current).toBe(2); // Friday, Saturday; Monday not over
    const tue = day(1);
    const s = streakOf([day(-3), day(-2)], tue); // Monday missed
    expect(s).toMatchObject({ current: 0, longest: 2, missedRecoverable: [MON] });
  });

  it('lists the missed days still recoverable, newest first, and counts a recovered day', () => {
    const thu = day(3);
    const missed = streakOf([MON], thu);
    expect(missed.missedRecoverable).toEqual([day(2), day(1)]); // Wednesday, Tuesday (Monday read)
    const recovered = streakOf([MON, day(1), day(2)], thu); // Tuesday and Wednesday passed by quiz
    expect(recovered).toMatchObject({ current: 3, missedRecoverable: [] });
  });

  it('ignores repeats and Sunday readings, and finds the longest run anywhere in the history', () => {
    const history = [day(-15), day(-14), day(-13), day(-12), day(-8), day(-1), day(-1), MON];
    const s = streakOf(history, MON);
    // -15 (Sat), -13 (Mon), -12 (Tue) with -14 a Sunday: a run of 3; -8 (Sat) alone; -1 is a Sunday.
    expect(s).toMatchObject({ current: 1, longest: 3 });
    expect(streakOf([], MON)).toEqual({ current: 0, longest: 0, lastReadDate: null, missedRecoverable: [day(-2), day(-3)] });
  });

  it('ends a Sunday’s streak on Saturday', () => {
    const sun = day(6);
    expect(streakOf([day(4), day(5)], sun).current).toBe(2);
    expect(streakOf([day(3), day(4)], sun)).toMatchObject({ current: 0, missedRecoverable: [day(5)] });
  });
});

describe('seeded editions', () => {
  it('are written in Portuguese from the stories given, titled by edition and day', () => {
    const story = { title: 'Copom mantém a Selic', subtitle: 'Decisão unânime', summary: 'O comitê manteve a taxa em 10,5%.', publishedAt: new Date('2026-11-23T12:00:00Z') };
    const { title, text } = composeEdition(MON, 'night', [story]);
    expect(title).toBe('Edição da noite de segunda-feira, 23/11/2026');
    expect(text).toContain('Boa noite!');
    expect(text).toContain('## Copom mantém a Selic\n\nDecisão unânime\n\nO comitê manteve a taxa em 10,5%.');
  });
});
