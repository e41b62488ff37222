// What the console knows about one run: the engine's detail (GET /api/runs/{id} or the stream's
// snapshot) with live rank and run events applied on top, the same way the engine applies them.

export const FINAL_RANK_STATES = new Set(['DONE', 'FAILED', 'ABORTED']);
export const FINAL_RUN_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);
const MAX_LOG_LINES = 500;

function emptyRank(rank) {
  return {rank, state: 'PENDING', progress: {value: 0, total: 0}, logs: [], outputs: {}, sentTo: {}, bytesTo: {}};
}

export class RunModel {
  constructor(runId) {
    this.id = runId;
    this.run = null;      // summary fields: state, workflow, createdMs, startedMs, endedMs, progress, error, size, params
    this.ranks = [];
    this.outputs = {};    // {name: {rank: value}}
    this.listeners = new Set();
  }

  /** Calls listener(model) after every change; returns an unsubscribe function. */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    this.listeners.forEach(l => l(this));
  }

  get isFinal() {
    return this.run !== null && FINAL_RUN_STATES.has(this.run.state);
  }

  /** Takes the engine's full detail as the new truth. */
  replace(detail) {
    const {ranks, outputs, matrix, ...run} = detail;
    this.run = run;
    this.ranks = (ranks || []).map(r => ({...emptyRank(r.rank), ...r, logs: r.logs || []}));
    this.outputs = outputs || {};
    this.changed();
  }

  /** A run event: the run's summary after a state change. */
  applyRunSummary(summary) {
    this.run = {...(this.run || {}), ...summary};
    // the engine names the queue place only while the run is QUEUED: a summary without one means it left the queue
    if (summary.state && summary.queue === undefined) delete this.run.queue;
    this.changed();
  }

  /** Applies one RankEvent (STATE, ACTIVITY, WAIT, LOG, PROGRESS, OUTPUT, COUNTERS). */
  applyRankEvent(e) {
    if (!Number.isInteger(e.rank) || e.rank < 0) return;
    while (this.ranks.length <= e.rank) this.ranks.push(emptyRank(this.ranks.length));
    const r = this.ranks[e.rank];
    switch (e.type) {
      case 'STATE': this.applyState(r, e); break;
      case 'ACTIVITY':
        r.activity = e.activity;
        r.location = e.location;
        r.blocked = false;
        r.waitingFor = null;
        r.waitsForRank = null;
        if (r.state === 'PENDING') r.state = 'RUNNING';
        break;
      case 'WAIT':
        if (e.activity) r.activity = e.activity;
        if (e.location) r.location = e.location;
        r.blocked = true;
        r.waitingFor = e.message;
        r.waitsForRank = waitedRank(e.message);
        break;
      case 'LOG':
        if (this.appendLog(r, {timeMs: e.timeMs, level: e.level || 'info', message: e.message})) r.logCount = (r.logCount || 0) + 1;
        break;
      case 'PROGRESS':
        if (e.value && typeof e.value === 'object') {
          r.progress = {value: Number(e.value.value) || 0, total: Number(e.value.total) || 0};
          r.progressFromCheckpoint = null; // the rank's own report, no longer its checkpoint's
        }
        break;
      case 'OUTPUT':
        r.outputs = {...r.outputs, [e.name]: e.value};
        this.outputs = {...this.outputs, [e.name]: {...(this.outputs[e.name] || {}), [String(e.rank)]: e.value}};
        break;
      case 'COUNTERS':
        if (e.value && typeof e.value === 'object') {
          r.sentTo = {...r.sentTo, ...(e.value.sentTo || {})};
          r.bytesTo = {...r.bytesTo, ...(e.value.bytesTo || {})};
        }
        break;
      default: return;
    }
    this.changed();
  }

  applyState(r, e) {
    if (!e.state || FINAL_RANK_STATES.has(r.state)) return;
    let state = e.state;
    // a rank that failed only because another rank aborted the domain is a consequence, not a cause
    if (state === 'FAILED' && (e.message || '').startsWith('DomainAbortedException')) state = 'ABORTED';
    r.state = state;
    if (state === 'RUNNING' && !r.startedMs) r.startedMs = e.timeMs;
    if (FINAL_RANK_STATES.has(state)) {
      r.endedMs = e.timeMs;
      r.blocked = false;
      r.waitingFor = null;
      if (state !== 'DONE') r.error = e.message || r.error;
      if (state === 'FAILED') r.fault = e.fault || null;
      if (e.activity) r.activity = e.activity;
      if (e.location) r.location = e.location;
    }
  }

  appendLog(r, line) {
    const duplicate = r.logs.some(l => l.timeMs === line.timeMs && l.message === line.message && l.level === line.level);
    if (duplicate) return false;
    r.logs = [...r.logs, line].slice(-MAX_LOG_LINES);
    return true;
  }

  /** Whether the rank reports <progress> (a total above 0). */
  static reportsProgress(r) {
    return Boolean(r.progress && r.progress.total > 0);
  }

  /** Fraction 0..1 of one rank's progress (1 when done). */
  static rankProgress(r) {
    if (r.state === 'DONE') return 1;
    const p = r.progress || {};
    return p.total > 0 ? Math.min(1, p.value / p.total) : 0;
  }

  /**
   * The run's progress as the engine computes it: the mean over the ranks that report <progress>
   * (ranks that never do would count as 0 and drag it down); without any, the share of ranks DONE.
   */
  progress() {
    if (this.ranks.length === 0) return this.run ? (this.run.progress || 0) : 0;
    const reporting = this.ranks.filter(RunModel.reportsProgress);
    if (reporting.length === 0) return this.ranks.filter(r => r.state === 'DONE').length / this.ranks.length;
    return reporting.reduce((s, r) => s + RunModel.rankProgress(r), 0) / reporting.length;
  }

  /** How many ranks report <progress>. */
  progressReporters() {
    return this.ranks.filter(RunModel.reportsProgress).length;
  }

  /**
   * The checkpoint the run's progress is taken from while the attempt that resumed from it has not reported its own
   * (the engine's progressFromCheckpoint, of the run before its ranks are placed, else of a rank), or null.
   */
  progressFromCheckpoint() {
    if (this.isFinal) return null;
    const rank = this.ranks.find(r => r.progressFromCheckpoint !== null && r.progressFromCheckpoint !== undefined);
    if (rank) return rank.progressFromCheckpoint;
    return this.ranks.length === 0 ? (this.run && this.run.progressFromCheckpoint) ?? null : null;
  }

  /** The number of the current attempt (1 for a run never restarted or resumed). */
  get attempt() {
    const log = (this.run && this.run.attemptLog) || [];
    return log.length || (this.run && this.run.attempts) || 1;
  }

  /** {messages: n×n, bytes: n×n} from the ranks' counters (row: sender, column: receiver). */
  matrix() {
    const n = this.ranks.length;
    const messages = Array.from({length: n}, () => new Array(n).fill(0));
    const bytes = Array.from({length: n}, () => new Array(n).fill(0));
    for (const r of this.ranks) {
      for (const [to, count] of Object.entries(r.sentTo || {})) {
        if (to >= 0 && to < n) messages[r.rank][to] = Number(count);
      }
      for (const [to, count] of Object.entries(r.bytesTo || {})) {
        if (to >= 0 && to < n) bytes[r.rank][to] = Number(count);
      }
    }
    return {messages, bytes};
  }
}

/** The rank a wait message names ("receive from 3 tag 0 comm world" → 3), as the engine's detector reads it. */
export function waitedRank(message) {
  if (!message) return null;
  const m = /(?:\bfrom(?:\s+rank)?|\bsource|\bto(?:\s+rank)?|\bfor(?:\s+rank)?|\broot)\s+(\d+)\b/.exec(message);
  return m ? Number(m[1]) : null;
}
