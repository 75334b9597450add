/**
 * /staff/ai/playground: try an agent (POST /ai/agent/{name}) with a prompt, as the member: the
 * answer, each tool the agent called (its arguments and result), the tokens spent and why it
 * stopped; and the member's own daily token budget (GET /ai/usage), which the run spends.
 */
import { useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { failureOf, useStaffResource, type Failure } from '../api';
import { formatDateTime } from '../i18n';
import { ErrorState, LoadingState, Panel, useFailureText } from '../ui';
import { aiApi, type Agent, type ChatResult, type OwnUsage } from './api';
import { formatNumber } from './format';
import { Field, Json, NS } from './shared';
import { LIMITS } from './validate';

export function PlaygroundView() {
  const { t, i18n } = useTranslation(NS);
  const failureText = useFailureText();
  const id = useId();
  const [params, setParams] = useSearchParams();
  const agents = useStaffResource<Agent[]>('/ai/agents');
  const own = useStaffResource<OwnUsage>('/ai/usage');
  const chosen = params.get('agent') ?? '';
  const list = agents.data ?? [];
  const agent = list.find((a) => a.name === chosen) ?? list[0];
  const [prompt, setPrompt] = useState('');
  const [promptError, setPromptError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ agent: string; prompt: string; result: ChatResult } | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const promptInput = useRef<HTMLTextAreaElement>(null);
  const answerHeading = useRef<HTMLHeadingElement>(null);

  const run = async (e: FormEvent) => {
    e.preventDefault();
    if (!agent) return;
    const text = prompt.trim();
    const problem = !text ? t('errors.required') : text.length > LIMITS.prompt ? t('errors.tooLong', { max: LIMITS.prompt }) : null;
    setPromptError(problem);
    if (problem) {
      promptInput.current?.focus();
      return;
    }
    setFailure(null);
    setBusy(true);
    try {
      const result = await aiApi.runAgent(agent.name, text);
      setAnswer({ agent: agent.name, prompt: text, result });
      requestAnimationFrame(() => answerHeading.current?.focus());
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
      void own.reload();
    }
  };

  const runFailure = (f: Failure): string => {
    if (f.kind === 'tooMany' && typeof f.details.dailyTokens === 'number') {
      return t('playground.budgetSpent', { used: formatNumber(Number(f.details.usedTokens ?? 0), i18n.language), daily: formatNumber(f.details.dailyTokens, i18n.language), at: formatDateTime(String(f.details.resetsAt ?? ''), i18n.language) });
    }
    if (f.kind === 'unavailable') return t('playground.unavailable');
    if (f.kind === 'notFound') return t('playground.notFound');
    if (f.kind === 'invalid') return t('errors.invalid', { message: f.message });
    return failureText(f);
  };

  const budget = own.data?.budget;
  return (
    <>
      <Panel title={t('playground.title')}>
        <p className="muted ai-help">{t('playground.lead')}</p>
        {agents.failure ? (
          <ErrorState failure={agents.failure} onRetry={() => void agents.reload()} />
        ) : !agents.data || !agent ? (
          <LoadingState />
        ) : (
          <form className="ai-form ai-playground" onSubmit={(e) => void run(e)} noValidate>
            <Field id={`${id}-agent`} label={t('playground.agent')} help={agent.description || undefined}>
              {(d) => (
                <select
                  id={`${id}-agent`}
                  value={agent.name}
                  onChange={(e) => {
                    const next = new URLSearchParams(params);
                    next.set('agent', e.target.value);
                    setParams(next, { replace: true });
                  }}
                  aria-describedby={d}
                >
                  {list.map((a) => (
                    <option key={a.name} value={a.name}>
                      {a.builtin ? t('playground.builtinOption', { name: a.name }) : a.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <p className="muted small ai-agent-summary">
              {t('playground.agentSummary', { model: agent.model, temperature: agent.temperature })}{' '}
              {agent.tools.length ? t('playground.agentTools', { tools: agent.tools.join(', ') }) : t('playground.agentNoTools')}
            </p>
            <Field id={`${id}-prompt`} label={t('playground.prompt')} help={t('playground.promptHelp')} error={promptError}>
              {(d, invalid) => (
                <textarea
                  ref={promptInput}
                  id={`${id}-prompt`}
                  rows={4}
                  required
                  value={prompt}
                  onChange={(e) => {
                    setPrompt(e.target.value);
                    setPromptError(null);
                  }}
                  aria-describedby={d}
                  aria-invalid={invalid || undefined}
                />
              )}
            </Field>
            <div className="row">
              <button type="submit" disabled={busy}>
                {busy ? t('playground.running') : t('playground.run')}
              </button>
              {budget ? (
                <span className="muted small" data-testid="ai-budget">
                  {t('playground.budget', { remaining: formatNumber(budget.remainingTokens, i18n.language), daily: formatNumber(budget.dailyTokens, i18n.language) })}
                </span>
              ) : null}
            </div>
          </form>
        )}
        <div role="status" className="ai-progress-region">
          {busy ? <p className="ai-progress">{t('playground.waiting', { name: agent?.name ?? '' })}</p> : null}
        </div>
        {failure ? (
          <p role="alert" className="error ai-form-error">
            {runFailure(failure)}
          </p>
        ) : null}
      </Panel>
      {answer ? <Answer answer={answer} headingRef={answerHeading} /> : null}
    </>
  );
}

function Answer({ answer, headingRef }: { answer: { agent: string; prompt: string; result: ChatResult }; headingRef: RefObject<HTMLHeadingElement | null> }) {
  const { t, i18n } = useTranslation(NS);
  const r = answer.result;
  const n = (v: number) => formatNumber(v, i18n.language);
  return (
    <section className="card staff-panel ai-answer" aria-labelledby="ai-answer-heading" data-testid="ai-answer">
      <h2 id="ai-answer-heading" ref={headingRef} tabIndex={-1}>
        {t('playground.answerTitle', { name: answer.agent })}
      </h2>
      <p className="muted small ai-asked">
        <span className="ai-label">{t('playground.asked')}</span> {answer.prompt}
      </p>
      <div className="ai-content" data-testid="ai-content">
        {r.content || <span className="muted">{t('playground.empty')}</span>}
      </div>
      <dl className="ai-facts">
        <dt>{t('playground.finish')}</dt>
        <dd>
          <code>{r.finishReason}</code> <span className="muted small">{t(`playground.finishReasons.${r.finishReason}`, { defaultValue: '' })}</span>
        </dd>
        <dt>{t('playground.tokens')}</dt>
        <dd data-testid="ai-run-usage">{t('playground.tokensValue', { prompt: n(r.usage.promptTokens), completion: n(r.usage.completionTokens), total: n(r.usage.totalTokens) })}</dd>
      </dl>
      <h3>{t('playground.toolResults', { count: r.toolResults.length })}</h3>
      {r.toolResults.length === 0 ? (
        <p className="muted">{t('playground.noTools')}</p>
      ) : (
        <ol className="ai-tool-results" data-testid="ai-tool-results">
          {r.toolResults.map((x, i) => (
            <li key={i}>
              <p className="ai-tool-call">
                <code className="ai-name">{x.toolName}</code> <span className="muted small">{formatDateTime(new Date(x.timestamp).toISOString(), i18n.language)}</span>
              </p>
              <div className="ai-tool-io">
                <div>
                  <p className="ai-label">{t('playground.arguments')}</p>
                  <Json value={x.arguments} label={t('playground.argumentsOf', { name: x.toolName, number: i + 1 })} />
                </div>
                <div>
                  <p className="ai-label">{t('playground.result')}</p>
                  <Json value={x.result} label={t('playground.resultOf', { name: x.toolName, number: i + 1 })} />
                </div>
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
