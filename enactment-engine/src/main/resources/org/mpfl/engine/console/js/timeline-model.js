// Builds each rank's timeline from its STATE, ACTIVITY and WAIT events: segments of compute,
// communicate, wait (and "running" when a rank reports no activities), and end markers.

import { activityKind } from './activity-kind.js';

const FINAL = new Set(['DONE', 'FAILED', 'ABORTED']);

export class TimelineModel {
  constructor() {
    this.eventsByRank = new Map();
    this.seen = new Set();
  }

  /**
   * Adds a rank event (others than STATE/ACTIVITY/WAIT are ignored); duplicates are dropped: the
   * same rank, sequence number, time and type (a resumed run's new attempt numbers its events from 0 again).
   */
  add(e) {
    if (!e || !['STATE', 'ACTIVITY', 'WAIT'].includes(e.type) || !Number.isInteger(e.rank)) return false;
    const key = `${e.rank}:${e.seq}:${e.timeMs}:${e.type}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (!this.eventsByRank.has(e.rank)) this.eventsByRank.set(e.rank, []);
    const list = this.eventsByRank.get(e.rank);
    list.push(e);
    if (list.length > 1 && compare(list[list.length - 2], e) > 0) list.sort(compare);
    return true;
  }

  /** Earliest and latest event time over all ranks, or null. */
  extent() {
    let min = Infinity;
    let max = -Infinity;
    for (const list of this.eventsByRank.values()) {
      if (list.length === 0) continue;
      min = Math.min(min, list[0].timeMs);
      max = Math.max(max, list[list.length - 1].timeMs);
    }
    return min === Infinity ? null : {minMs: min, maxMs: max};
  }

  /**
   * One rank's segments and markers; a segment still open is drawn up to openEndMs. attemptEndsMs: when
   * the run's attempts ended, ascending. A segment ends with its attempt at the latest: a rank of an
   * interrupted attempt (its host lost, the run cancelled) may report nothing more, and its last
   * activity must not stretch over the gap and into the next attempt, whose start then opens a segment.
   * @returns {{segments: Array<{kind, startMs, endMs, label, location, open}>, markers: Array<{kind, timeMs, label}>}}
   */
  lane(rank, openEndMs, attemptEndsMs = []) {
    const segments = [];
    const markers = [];
    let current = null;
    const attemptEndBefore = t => attemptEndsMs.find(end => end >= current.startMs && end < t);
    const close = t => {
      if (current) {
        current.endMs = Math.max(current.startMs, attemptEndBefore(t) ?? t);
        segments.push(current);
        current = null;
      }
    };
    for (const e of this.eventsByRank.get(rank) || []) {
      if (current && attemptEndBefore(e.timeMs) !== undefined) close(e.timeMs);
      if (e.type === 'STATE') {
        if (e.state === 'RUNNING') {
          if (!current) current = {kind: 'running', startMs: e.timeMs, label: 'running', location: null};
        } else if (FINAL.has(e.state)) {
          close(e.timeMs);
          // as the engine: failing only because the domain was aborted is ABORTED, not a cause
          const state = e.state === 'FAILED' && (e.message || '').startsWith('DomainAbortedException') ? 'ABORTED' : e.state;
          markers.push({kind: state.toLowerCase(), timeMs: e.timeMs, label: state + (e.message ? ': ' + e.message : '')});
        }
      } else if (e.type === 'ACTIVITY') {
        close(e.timeMs);
        current = {kind: activityKind(e.activity), startMs: e.timeMs, label: e.activity || 'activity', location: e.location};
      } else if (e.type === 'WAIT') {
        close(e.timeMs);
        current = {kind: 'wait', startMs: e.timeMs, label: 'waits: ' + (e.message || e.activity || ''), location: e.location};
      }
    }
    if (current) {
      current.open = attemptEndBefore(openEndMs) === undefined;
      close(Math.max(current.startMs, openEndMs));
    }
    return {segments, markers};
  }
}

function compare(a, b) {
  return a.timeMs - b.timeMs || a.seq - b.seq;
}
