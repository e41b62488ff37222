// A run's detail, live: header with state and progress, failure cause, cancel, per-rank state,
// message matrix, timeline, logs and outputs. Driven by the run's server-sent event stream; the
// engine's detail is re-read now and then for what only its status polls learn (counters, progress).

import { api, ApiError } from './api.js';
import { el, show, stateBadge, progressBar, humanText } from './dom.js';
import { formatDuration, formatTime, formatValue, humanMessage, plural, shortLocation, sortedParams } from './format.js';
import { askForToken, hasEngineToken, markTokenRefused } from './engine-token.js';
import { loggedIn, sessionKnown } from './session.js';
import { FINAL_RANK_STATES, RunModel } from './run-model.js';
import { RunEventStream } from './run-event-stream.js';
import { TimelineModel } from './timeline-model.js';
import { TimelineView } from './timeline-view.js';
import { MessageMatrixView } from './message-matrix-view.js';
import { RankTableView, focusRankRow } from './rank-table-view.js';
import { RankLogsView } from './rank-logs-view.js';
import { locationLink, runWorkflowLabel, runWorkflowRef } from './workflows-view.js';
import { workflowStored } from './workflow-graph-view.js';
import { AttemptsView, activeMs, attemptsLabel } from './attempts-view.js';

const RECONCILE_MS = 2000;     // re-read the detail while the run is live
const ENDED_CHECK_MS = 5000;   // and, once it ended, whether it was resumed elsewhere (mpflc resume, another tab)
const LATE_RANKS_MS = 120000;  // and, for so long after it ended, while a rank has not ended (its end on its way)
const CLOCK_MS = 1000;         // redraw growing durations and open timeline segments
const HISTORY_PAGE = 10000;
const MIN_RENDER_GAP_MS = 200;

/**
 * The run's size: a QUEUED run's is its plan's (none placed yet), a run between its places (being placed) has none.
 */
function ranksFact(run, model) {
  const size = run.size ?? model.ranks.length;
  if (run.state === 'QUEUED' && size) return `${size}, not placed yet`;
  return !model.isFinal && !size ? 'not placed yet' : String(size);
}

/**
 * Why this page cannot cancel or resume (what: "Cancelling"), or null when it can: with the engine token, or as a
 * logged-in operator or admin (the session cookie carries the login; the engine checks the run's project).
 */
function mayNotAct(what) {
  if (hasEngineToken()) return null;
  const session = loggedIn();
  if (session && (session.role === 'operator' || session.role === 'admin')) return null;
  return session ? `${what} needs the operator role; ${session.user} is ${session.role}. An operator of the run's project, an admin or the engine token (top bar) can.`
    : `${what} needs a login (Log in, top bar) or the engine token: enter it in the top bar, then press the button again.`;
}

/**
 * Why the logged-in user's role cannot cancel or resume (what: "Cancelling"), or null: known before the button is
 * pressed, so the button is drawn disabled with these words beside it. Without a login the button stays: pressing it
 * asks for a login or the engine token.
 */
function roleRefusal(what) {
  const session = loggedIn();
  return session && !hasEngineToken() && session.role !== 'operator' && session.role !== 'admin' ? mayNotAct(what) : null;
}

/**
 * An action's button, disabled with the reason beside it (id action-refused, which the button names as its
 * description) when the login's role does not allow it.
 */
function actionButton(attrs, label, refused) {
  if (!refused) return [el('button', {type: 'button', ...attrs}, label)];
  return [el('button', {type: 'button', ...attrs, onclick: null, disabled: true, 'aria-describedby': 'action-refused'}, label),
    el('span', {class: 'action-refused', id: 'action-refused'}, refused)];
}

/** Whether the action's button is drawn as the role now allows (drawn again when the login became known). */
function drawnFor(actions, id, refused) {
  const button = actions.querySelector('#' + id);
  return button !== null && button.disabled === Boolean(refused);
}

/** A link to a rank's row in the ranks table. */
function rankLink(rank, cls) {
  return el('a', {class: cls, href: '#rank-row-' + rank, 'data-rank': rank,
    onclick: e => { e.preventDefault(); focusRankRow(rank); }}, 'rank ' + rank);
}

/**
 * The deadlock detector's report ("deadlock: rank 0 waits for rank 1 at /x/ring.mpfl.xml:9:9 > …")
 * as a list: each rank and the rank it waits for link to their rows, locations shortened.
 */
function deadlockCycle(message) {
  const body = message.replace(/^deadlock: /, '');
  const colon = body.indexOf(': rank ');
  const intro = colon >= 0 ? body.slice(0, colon) : null;
  const steps = (colon >= 0 ? body.slice(colon + 2) : body).split(' > ');
  return el('div', {class: 'deadlock'},
    intro ? el('p', {}, intro + ':') : null,
    el('ol', {class: 'deadlock-cycle', id: 'deadlock-cycle'}, steps.map(step => {
      const m = /^rank (\d+) (waits for rank (\d+)|waits.*?)(?: at (\S+))?$/.exec(step);
      if (!m) return el('li', {}, step);
      return el('li', {'data-rank': m[1]}, rankLink(Number(m[1])), ' waits for ',
        m[3] !== undefined ? rankLink(Number(m[3])) : m[2].replace(/^waits\s*/, ''),
        m[4] ? [' at ', el('code', {title: m[4]}, shortLocation(m[4]))] : null);
    })));
}

function section(id, title, ...content) {
  return el('section', {class: 'panel', id: id + '-section', 'aria-labelledby': id + '-heading'},
    el('h2', {id: id + '-heading'}, title), ...content);
}

/** What the resume button says, asks and reports: from a checkpoint "Resume", without one "Retry". */
function resumeWords(fromCheckpoint) {
  return fromCheckpoint
    ? {name: 'Resume', button: 'Resume from checkpoint', question: 'Resume this run from its newest usable checkpoint?', yes: 'Yes, resume it'}
    : {name: 'Retry', button: 'Retry from the start', question: 'Run this again from the start?', yes: 'Yes, retry it'};
}

/**
 * What the run's progress bar is made of. An attempt resumed from a checkpoint starts where the run was when that
 * checkpoint was taken, until its ranks report their own progress; one resumed from the start has not reported yet
 * (not: reports none).
 */
function progressNote(model, fraction) {
  const reporters = model.progressReporters();
  const pct = `${Math.round(fraction * 100)} %`;
  const checkpoint = model.progressFromCheckpoint();
  if (checkpoint !== null && model.ranks.length === 0) return `resuming at ${pct} · where the run was at checkpoint ${checkpoint}`;
  if (reporters === 0) {
    if (!model.ranks.length) return '';
    return model.attempt > 1 && !model.isFinal ? `no rank has reported progress in attempt ${model.attempt} yet: share of ranks done`
      : 'no rank reports progress: share of ranks done';
  }
  const resumed = model.ranks.filter(r => RunModel.reportsProgress(r) && r.progressFromCheckpoint !== null && r.progressFromCheckpoint !== undefined).length;
  return `${model.isFinal ? 'ended at' : 'progress of'} ${pct} · from ${plural(reporters, 'rank')} reporting progress`
    + (reporters < model.ranks.length ? ` (of ${model.ranks.length})` : '')
    + (checkpoint !== null ? ` · ${resumed === reporters ? (reporters === 1 ? 'it' : 'all') : resumed} as at checkpoint ${checkpoint}, `
      + `not yet reported in attempt ${model.attempt}` : '');
}

/**
 * How long a live run's current attempt has been going (since its placement), not the wall time since creation: a run
 * cancelled yesterday and resumed a minute ago has run for a minute, not a day (the wall time says the rest). Before
 * its attempt is placed (queued, pending) it has not run yet.
 */
function runningFact(run, log) {
  const current = log[log.length - 1];
  // an engine that kept no attempt log: since the run started, once it runs
  const placed = current && !current.endMs && current.startMs ? current.startMs
    : !log.length && run.state === 'RUNNING' ? run.startedMs || run.createdMs : null;
  // named by its attempt once placed (a resumed run waiting for places has only its ended attempts in the log)
  return el('div', {class: 'fact'}, el('dt', {}, placed && log.length > 1 ? `Running for (attempt ${log.length})` : 'Running for'),
    el('dd', {id: 'run-running', 'data-since': placed || ''}, placed ? formatDuration(Date.now() - placed) : 'not placed yet'));
}

/** Whether a live run's attempts in the log have all ended: it waits for places for the next one (queued, resumed). */
function waitingForNext(run, isFinal) {
  const log = run.attemptLog || [];
  return !isFinal && log.length > 0 && Boolean(log[log.length - 1].endMs);
}

class RunHeader {
  constructor(onCancel, onResume) {
    this.onCancel = onCancel;
    this.onResume = onResume;
    this.title = el('h1', {id: 'run-title'});
    this.facts = el('dl', {class: 'facts'});
    this.progress = el('div', {class: 'run-progress'});
    this.cause = el('div', {id: 'run-cause'});
    this.actions = el('div', {class: 'actions', id: 'run-actions'});
    this.message = el('p', {class: 'action-message', id: 'cancel-message', role: 'status'});
    this.confirming = null; // the action asked about: 'cancel' or 'resume'
    this.element = el('div', {class: 'run-header'},
      el('div', {class: 'title-row'}, this.title, this.actions), this.facts, this.progress, this.cause, this.message);
  }

  update(model) {
    const run = model.run || {};
    // an action's message is done with once the run ended after it (resumed), or at all (cancel sent: the
    // answer may come after the engine ended the run), or once the run moved on from the states it speaks of
    // ("Resumed: a new attempt is pending." is untrue once that attempt runs)
    if (this.saidAtMs && ((model.isFinal && (this.saidUntilFinal || (run.endedMs && run.endedMs > this.saidAtMs)))
        || (this.saidOf && run.state && !this.saidOf.includes(run.state)))) this.say('');
    show(this.title, run.workflow || 'run', ' ', stateBadge(run.state, 'run-state'),
      run.queue && run.state === 'QUEUED' ? el('span', {class: 'queue-place'}, ` queue position ${run.queue.position}: ${run.queue.reason}`) : '');
    // wall time from creation (what the user waited), active time the sum of the attempts' own times
    const wall = run.createdMs ? (run.endedMs || Date.now()) - run.createdMs : null;
    const active = activeMs(run, model.isFinal);
    const log = run.attemptLog || [];
    const fact = (name, value, id) => el('div', {class: 'fact'}, el('dt', {}, name), el('dd', {id}, value));
    show(this.facts,
      fact('Run id', el('code', {}, model.id)),
      fact('Workflow version', run.workflowVersion ? runWorkflowLabel(run) : 'not stored (sent with the run)', 'run-workflow-version'),
      run.project ? fact('Project', [run.project, el('span', {class: 'sub'}, ' · started by ' + (run.owner || '?'))], 'run-project') : null,
      fact('Created', formatTime(run.createdMs)),
      run.endedMs ? fact('Ended', formatTime(run.endedMs)) : runningFact(run, log),
      fact('Wall time', formatDuration(wall), 'run-duration'),
      fact('Active time', formatDuration(active), 'run-active'),
      // named by its attempt once there were several, or while a resumed run waits for the next: it is the last one's
      fact(log.length > 1 || (log.length && waitingForNext(run, model.isFinal)) ? `Start-up (attempt ${log.length})` : 'Start-up',
        Number.isFinite(run.startupMs) && run.startupMs >= 0 ? formatDuration(run.startupMs) : '–', 'run-startup'),
      fact('Ranks', ranksFact(run, model), 'run-size'),
      fact('Attempts', log.length ? el('a', {href: '#attempts-section', onclick: e => { e.preventDefault();
        document.getElementById('attempts-section').scrollIntoView(); }}, attemptsLabel(run)) : '–', 'run-attempts'),
      fact('Parameters', sortedParams(run.params).length
        ? sortedParams(run.params).map(([k, v]) => el('code', {class: 'param'}, `${k}=${formatValue(v, 40)}`)) : '–', 'run-params'));
    const fraction = model.progress();
    show(this.progress, progressBar(fraction, 'progress of the run'),
      el('p', {class: 'sub', id: 'run-progress-note'}, progressNote(model, fraction)));
    this.renderCause(run);
    this.renderActions(model);
  }

  renderCause(run) {
    const e = run.error;
    // drawn again only when it changed: a live page renders often, and would close an opened "details"
    const key = JSON.stringify([run.state, e]);
    if (key === this.causeKey) return;
    this.causeKey = key;
    if (!e || !run.state || !['FAILED', 'CANCELLED'].includes(run.state)) {
      show(this.cause);
      return;
    }
    if (run.state === 'CANCELLED') {
      show(this.cause, el('div', {class: 'notice cancelled'}, 'Cancelled: ', humanMessage(e.message || 'by a user').text));
      return;
    }
    const deadlock = /^deadlock: /.test(e.message || '');
    show(this.cause, el('div', {class: 'notice failure', role: 'alert', id: 'failure'},
      el('strong', {}, deadlock ? 'Deadlock detected' : 'Failed'),
      e.rank !== null && e.rank !== undefined ? [deadlock ? ' · cycle from ' : ' at ', rankLink(e.rank, 'failure-rank')] : null,
      e.location ? [' · ', locationLink(run, e.location, {class: 'failure-location', 'data-location': e.location})] : null,
      deadlock ? deadlockCycle(e.message) : humanText(e.message || 'no cause reported', 'failure-message')));
  }

  renderActions(model) {
    const resumable = model.run && ['FAILED', 'CANCELLED'].includes(model.run.state);
    // a question about the other action is moot once the run ended or lives again
    if (this.confirming && this.confirming !== (resumable ? 'resume' : 'cancel')) this.confirming = null;
    if (resumable) {
      this.renderResume(model);
      return;
    }
    if (model.isFinal || !model.run) {
      show(this.actions);
      this.confirming = null;
      return;
    }
    if (this.confirming === 'cancel') {
      this.renderConfirm('Cancel this run?', 'cancel', 'Yes, cancel it', 'Keep running', () => this.onCancel(), model);
    } else if (!drawnFor(this.actions, 'cancel-run', roleRefusal('Cancelling'))) {
      show(this.actions, actionButton({class: 'danger', id: 'cancel-run', onclick: () => {
        const refused = mayNotAct('Cancelling');
        if (refused) {
          this.say(refused);
          if (!loggedIn()) askForToken();
          return;
        }
        this.confirming = 'cancel';
        this.renderActions(model);
      }}, 'Cancel run…', roleRefusal('Cancelling')));
    }
  }

  /** Resume (from the newest usable checkpoint) or retry (from the start, none taken), confirmed as cancel is. */
  renderResume(model) {
    const fromCheckpoint = (model.run.checkpointsTaken || 0) > 0;
    const words = resumeWords(fromCheckpoint);
    if (this.confirming === 'resume') {
      this.renderConfirm(words.question, 'resume', words.yes, 'Not now', () => this.onResume(words.name), model);
      return;
    }
    const roleRefused = roleRefusal(words.name === 'Retry' ? 'Retrying' : 'Resuming');
    if (drawnFor(this.actions, 'resume-run', roleRefused)) return;
    show(this.actions, actionButton({id: 'resume-run', 'data-from-checkpoint': String(fromCheckpoint),
      title: fromCheckpoint ? 'A new attempt from the newest usable checkpoint' : 'A new attempt from the start (no checkpoint)',
      onclick: () => {
        const refused = mayNotAct(words.name === 'Retry' ? 'Retrying' : 'Resuming');
        if (refused) {
          this.say(refused);
          if (!loggedIn()) askForToken();
          return;
        }
        this.confirming = 'resume';
        this.renderActions(model);
      }}, words.button, roleRefused));
  }

  /**
   * The inline confirmation of an action: its question, a button that does it and one that does not. Drawn once:
   * a live redraw (every poll) must not replace the buttons under the reader's pointer, or a click lands on none.
   */
  renderConfirm(question, action, yes, no, act, model) {
    if (this.actions.querySelector('#' + action + '-confirm')) return;
    show(this.actions, el('span', {class: 'confirm-text'}, question),
      el('button', {type: 'button', class: action === 'cancel' ? 'danger' : null, id: action + '-confirm',
        onclick: () => { this.answered(model); act(); }}, yes),
      el('button', {type: 'button', id: action + '-keep', onclick: () => this.answered(model)}, no));
  }

  /** The confirmation answered: the action's own button again (a refused action can be tried again). */
  answered(model) {
    this.confirming = null;
    show(this.actions);
    this.renderActions(model);
  }

  /**
   * A message under the buttons; untilFinal: it is about a run still going (a cancel on its way), gone once it ended;
   * of: the run states it is true in (gone once the run is in another), or null: until the run ends after it.
   */
  say(text, untilFinal = false, of = null) {
    this.message.textContent = text;
    this.saidAtMs = text ? Date.now() : 0;
    this.saidUntilFinal = untilFinal;
    this.saidOf = text ? of : null;
  }
}

/**
 * The run's trace (the same events as the timeline, as Chrome Trace Event JSON): a download for
 * Perfetto / chrome://tracing and the console's own drawing of it; the workflow's picture once the
 * engine knows the run's workflow as a stored one.
 */
function traceLinks(runId) {
  const links = el('p', {class: 'trace-links', id: 'trace-links'},
    el('a', {id: 'trace-download', class: 'button-link', href: 'api/runs/' + encodeURIComponent(runId) + '/trace', download: runId + '.trace.json'},
      'Download trace (Perfetto / chrome://tracing)'),
    el('a', {id: 'trace-open', class: 'button-link', href: '#/runs/' + encodeURIComponent(runId) + '/trace'}, 'Open trace'));
  api.run(runId).then(async run => {
    // the version the run used: a run of a document sent with it may share its name with an unrelated stored workflow
    const ref = runWorkflowRef(run);
    if (ref && await workflowStored(ref)) {
      links.append(el('a', {id: 'workflow-graph-link', class: 'button-link', href: '#/workflows/' + encodeURIComponent(ref) + '/graph'}, 'Workflow picture'));
    }
  }).catch(() => {});
  return links;
}

/**
 * Shows run runId in container; returns a function that closes its stream and timers. An id the engine
 * does not know gets one line saying so, not a page of empty sections waiting for a run that never comes.
 */
export function mountRunDetailView(container, runId) {
  let disposeRun = () => {};
  let disposed = false;
  show(container, el('p', {class: 'breadcrumb'}, el('a', {href: '#/runs'}, '← Runs')), el('p', {class: 'status-line', role: 'status'}, 'Loading…'));
  api.run(runId).then(detail => {
    if (!disposed) disposeRun = mountKnownRun(container, runId, detail);
  }, e => {
    if (disposed) return;
    if (e instanceof ApiError && e.status === 404) showUnknownRun(container, runId);
    else disposeRun = mountKnownRun(container, runId, null); // the engine unreachable for now: the page says so and retries
  });
  return () => {
    disposed = true;
    disposeRun();
  };
}

/** The one line a page of a run the engine does not know shows (the run's page, its trace). */
export function showUnknownRun(container, runId) {
  document.title = 'No such run · MPFL console';
  show(container, el('div', {class: 'notice', id: 'run-unknown'}, el('h1', {}, `No run '${runId}'`),
    el('p', {}, 'The engine knows no run with this id. ', el('a', {href: '#/runs'}, 'All runs'), '.')));
}

/** The page of a run the engine knows (detail: what it said of it, or null when it could not be asked). */
function mountKnownRun(container, runId, detail) {
  const model = new RunModel(runId);
  const timeline = new TimelineModel();
  const ranksView = new RankTableView();
  const matrixView = new MessageMatrixView();
  const timelineView = new TimelineView(timeline);
  const logsView = new RankLogsView(runId);
  const attemptsView = new AttemptsView();
  const connection = el('span', {class: 'connection', id: 'connection', role: 'status'});
  const header = new RunHeader(cancel, resume);
  const problem = el('p', {class: 'status-line', role: 'status'});
  let disposed = false;

  show(container,
    el('p', {class: 'breadcrumb'}, el('a', {href: '#/runs'}, '← Runs'), connection),
    problem,
    header.element,
    section('ranks', 'Ranks', ranksView.element),
    section('timeline', 'Timeline', traceLinks(runId), timelineView.element),
    section('attempts', 'Attempts and checkpoints', attemptsView.element),
    el('div', {class: 'two-columns'},
      section('matrix', 'Messages between ranks', matrixView.element),
      section('logs', 'Logs and outputs', logsView.element)));

  // at most one render per MIN_RENDER_GAP_MS, on an animation frame: busy runs send many events
  let frame = 0;
  let timer = 0;
  let lastRender = 0;
  const render = () => {
    frame = 0;
    lastRender = performance.now();
    if (disposed || !model.run) return;
    header.update(model);
    ranksView.update(model);
    matrixView.update(model);
    timelineView.update(model);
    logsView.update(model);
    attemptsView.update(model);
    container.dataset.runState = model.run.state;
    document.title = `${model.run.workflow || 'run'} · ${model.run.state} · MPFL console`;
  };
  const scheduleRender = () => {
    if (frame || timer) return;
    const wait = Math.max(0, lastRender + MIN_RENDER_GAP_MS - performance.now());
    timer = setTimeout(() => { timer = 0; frame = requestAnimationFrame(render); }, wait);
  };
  model.onChange(scheduleRender);
  // the login is read alongside the run: its role decides whether the actions are offered (an ended run is not redrawn)
  sessionKnown().then(scheduleRender);
  if (detail) model.replace(detail); // drawn at once; the stream's snapshot follows

  async function reconcile() {
    try {
      model.replace(await api.run(runId));
      problem.textContent = '';
    } catch (e) {
      problem.textContent = e instanceof ApiError && e.status === 404 ? `No run '${runId}'.` : 'Cannot read the run: ' + e.message;
    }
  }

  // The timeline needs every STATE/ACTIVITY/WAIT event from the start, while the stream only sends
  // what happens after it (re)connects: stored events are read after the newest one seen, whenever
  // the stream (re)opens and on every reconcile tick; the timeline drops duplicates.
  let lastStoredId = 0;
  let catchingUp = null;
  function catchUpHistory() {
    if (!catchingUp) {
      catchingUp = readHistoryAfter(lastStoredId)
        .catch(e => { problem.textContent = 'Cannot read the run history: ' + e.message; })
        .finally(() => { catchingUp = null; });
    }
    return catchingUp;
  }

  async function readHistoryAfter(after) {
    for (;;) {
      const page = await api.runHistory(runId, after, HISTORY_PAGE);
      let added = false;
      for (const stored of page) {
        if (stored.type === 'rank' && timeline.add(stored.body)) added = true;
        lastStoredId = Math.max(lastStoredId, stored.id);
      }
      if (added) scheduleRender();
      if (page.length < HISTORY_PAGE || disposed) return;
      after = page[page.length - 1].id;
    }
  }

  /** Runs a mutating call with the token: progress, then its result or why it failed, in the header. */
  async function withToken(name, progressText, call, done) {
    header.say(progressText);
    try {
      done(await call());
    } catch (e) {
      if (e instanceof ApiError && e.status === 401 && !hasEngineToken() && loggedIn()) {
        header.say('Your login has ended (' + e.message + '): log in again (top bar), then press the button again.');
      } else if (e instanceof ApiError && e.status === 401) {
        header.say('The engine refused the token (' + e.message + '). Enter the right one in the top bar.');
        markTokenRefused();
        askForToken();
      } else {
        // about the run as it was: moot once it is in another state (resumed elsewhere, ended)
        header.say(name + ' failed: ' + e.message, false, model.run ? [model.run.state] : null);
      }
    }
  }

  /** name: what the button said ("Resume", "Retry"), so that its result or refusal is said in the same words. */
  function resume(name) {
    return withToken(name, name === 'Retry' ? 'Retrying…' : 'Resuming…', () => api.resumeRun(runId), answer => {
      // the page may already follow the new attempt (its events can come before this answer): say its state then.
      // True while the page still shows the ended run (its detail is read again just below) or that state, not after
      const ended = model.isFinal;
      const now = ended ? answer.state : model.run.state;
      header.say(`${name === 'Retry' ? 'Retried' : 'Resumed'}: a new attempt is ${String(now).toLowerCase()}.`, false,
        ended ? [model.run.state, now] : [now]);
      onReopened();
    });
  }

  function cancel() {
    return withToken('Cancel', 'Cancelling…', () => api.cancelRun(runId), answer => {
      header.say(answer.cancelled ? 'Cancel sent: the ranks are being aborted.' : `The run had already ended (${answer.state}).`, answer.cancelled);
      if (answer.state) model.applyRunSummary({state: answer.state});
    });
  }

  const showConnection = state => {
    connection.textContent = {connecting: 'connecting…', live: '● live', reconnecting: 'reconnecting…',
      closed: 'disconnected', ended: 'run ended · not live'}[state];
    connection.dataset.state = state;
  };
  const stream = new RunEventStream(api.eventStreamUrl(runId), {
    onSnapshot: detail => {
      model.replace(detail);
      if (model.isFinal) showConnection('ended');
      catchUpHistory(); // the snapshot comes once the stream is subscribed: what happened before is stored
    },
    onRankEvent: event => {
      connection.dataset.events = String(Number(connection.dataset.events || 0) + 1);
      if (timeline.add(event)) scheduleRender();
      model.applyRankEvent(event);
    },
    onRunEvent: summary => {
      const wasFinal = model.isFinal;
      model.applyRunSummary(summary);
      if (!wasFinal && model.isFinal) {
        showConnection('ended');
        // the last events and counters arrive just after the end
        setTimeout(() => { reconcile(); catchUpHistory(); }, 1500);
      }
    },
    onConnection: state => showConnection(model.isFinal && state === 'live' ? 'ended' : state),
    onEnd: () => {
      // the engine closed the stream of the ended run: a reconnect would only get the same snapshot
      stream.stop();
      connection.dataset.stream = 'closed';
      // unless the run was resumed in the engine's grace after its end (the stream ends all the same): a new one
      if (!model.isFinal) {
        onReopened();
        return;
      }
      showConnection('ended');
      reconcile();
      catchUpHistory();
    },
  }).start();

  /** After a resume the run lives again: its stream (closed at the end) opens anew. */
  function onReopened() {
    delete connection.dataset.stream;
    reconcile();
    stream.stop();
    stream.start();
  }

  // Once the run ended its stream closes, but a rank's own end may reach the engine later (a loaded host takes
  // seconds to abort the others after a failure; the engine still takes their events): while a rank of the ended
  // run has not ended, its detail is read on, for at most LATE_RANKS_MS (a rank on a host that is gone may never say)
  let endedSeenMs = 0;
  const reconcileTimer = setInterval(() => {
    if (!model.isFinal) {
      endedSeenMs = 0;
      reconcile();
      catchUpHistory();
      return;
    }
    endedSeenMs = endedSeenMs || Date.now();
    if (Date.now() - endedSeenMs < LATE_RANKS_MS && model.ranks.some(r => !FINAL_RANK_STATES.has(r.state))) {
      reconcile();
      catchUpHistory();
    }
  }, RECONCILE_MS);
  // an ended run's stream is closed: a new attempt started elsewhere would go unseen, the page showing the old end
  const endedTimer = setInterval(async () => {
    if (!model.isFinal) return;
    try {
      // the run's summary: a few hundred bytes, where the detail of a big run (its ranks' logs) is megabytes
      const {body: found} = await api.runsPage({q: runId, limit: 10});
      const now = (found || []).find(r => r.id === runId);
      if (disposed || !now || !model.isFinal || (now.state === model.run.state && now.attempts === model.run.attempts)) return;
      model.replace(await api.run(runId));
      if (model.isFinal) catchUpHistory(); else onReopened();
    } catch (e) {
      // the engine unreachable for now: the page shows what it knew
    }
  }, ENDED_CHECK_MS);
  const clockTimer = setInterval(() => { if (model.run && !model.isFinal) scheduleRender(); }, CLOCK_MS);
  const onResize = () => scheduleRender();
  window.addEventListener('resize', onResize);

  return () => {
    disposed = true;
    stream.stop();
    clearInterval(reconcileTimer);
    clearInterval(endedTimer);
    clearInterval(clockTimer);
    window.removeEventListener('resize', onResize);
    if (frame) cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
