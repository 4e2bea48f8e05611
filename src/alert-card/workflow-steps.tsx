import type { WorkflowModel } from './view-model.js';
import { look, type Styling } from './styling.js';

/**
 * A workflow run: "Run <id> · <state>", then every step with its symbol, name,
 * info, state and duration. E-mail lays the steps out as a four-column table;
 * pages get an ordered list (the steps' order is the run's order).
 */
export function WorkflowSteps(props: { styling: Styling; workflow: WorkflowModel }) {
  const { styling, workflow: w } = props;
  const runLine = (
    <div {...look(styling, 'runLine')}>
      Run <code {...look(styling, 'runId')}>{w.runId}</code> · <b {...look(styling, 'runState', w.tone)}>{w.state}</b>
    </div>
  );
  if (styling === 'classes') {
    return (
      <>
        {runLine}
        <ol {...look(styling, 'steps')}>
          {w.steps.map((s) => (
            <li {...look(styling, 'step', s.tone)} data-state={s.state}>
              <span {...look(styling, 'stepSymbol', s.tone)} aria-hidden="true">
                {/* The step under way turns, as the run's badge does. */}
                {s.state === 'running' ? <span {...look(styling, 'spinner')} /> : s.symbol}
              </span>
              <span {...look(styling, 'stepName')}>
                {s.name}
                {s.info ? <span {...look(styling, 'stepInfo')}>{s.info}</span> : null}
              </span>
              <span {...look(styling, 'stepState', s.tone)}>{s.state}</span>
              <span {...look(styling, 'stepDuration')}>{s.duration ?? ''}</span>
            </li>
          ))}
        </ol>
      </>
    );
  }
  return (
    <>
      {runLine}
      <table role="presentation" width="100%" cellpadding={0} cellspacing={0} border={0} {...look(styling, 'steps')}>
        {w.steps.map((s) => (
          <tr>
            <td width="24" valign="top" {...look(styling, 'stepSymbol', s.tone)}>
              {s.symbol}
            </td>
            <td valign="top" {...look(styling, 'stepName')}>
              {s.name}
              {s.info ? <div {...look(styling, 'stepInfo')}>{s.info}</div> : null}
            </td>
            <td valign="top" {...look(styling, 'stepState', s.tone)}>
              {s.state}
            </td>
            <td valign="top" align="right" {...look(styling, 'stepDuration')}>
              {s.duration ?? ''}
            </td>
          </tr>
        ))}
      </table>
    </>
  );
}

/** The failed run's error log tail (the model holds it only for a failed run). */
export function WorkflowError(props: { styling: Styling; workflow: WorkflowModel }) {
  const { styling, workflow: w } = props;
  if (!w.errorTail) return null;
  return (
    <>
      <div {...look(styling, 'errorHeading')}>Error log (tail){w.failedStep ? ` · failed at ${w.failedStep}` : ''}</div>
      <pre {...look(styling, 'errorLog')}>{w.errorTail}</pre>
    </>
  );
}
