// The live server-sent event stream of one run (GET /api/runs/{id}/events):
//   event: snapshot  the run's detail when the stream (re)opens
//   event: rank      a RankEvent as the engine received it      (id: stored event id)
//   event: run       the run's summary after a state change      (id: stored event id)
//   event: end       the run has ended and the engine closes the stream (do not reconnect)
//   event: dropped   this tab read too slowly; the engine closed the stream, and EventSource reconnects
// The browser's EventSource reconnects by itself and sends Last-Event-ID, so the engine replays
// what was missed after a fresh snapshot.

function parse(message) {
  try {
    return JSON.parse(message.data);
  } catch (e) {
    return null;
  }
}

export class RunEventStream {
  /**
   * @param url      the stream's URL
   * @param handlers {onSnapshot(detail), onRankEvent(event, id), onRunEvent(summary, id), onConnection(state)}
   *                 where state is 'connecting' | 'live' | 'reconnecting'
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.source = null;
  }

  start() {
    const {onSnapshot, onRankEvent, onRunEvent, onConnection, onEnd} = this.handlers;
    onConnection && onConnection('connecting');
    const source = new EventSource(this.url);
    this.source = source;
    source.addEventListener('open', () => onConnection && onConnection('live'));
    source.addEventListener('error', () => {
      if (onConnection) onConnection(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    });
    source.addEventListener('snapshot', m => {
      const detail = parse(m);
      if (detail) onSnapshot(detail);
    });
    source.addEventListener('rank', m => {
      const event = parse(m);
      if (event) onRankEvent(event, Number(m.lastEventId) || 0);
    });
    source.addEventListener('end', () => {
      source.close();
      if (this.source === source) this.source = null;
      if (onEnd) onEnd();
    });
    source.addEventListener('run', m => {
      const summary = parse(m);
      if (summary) onRunEvent(summary, Number(m.lastEventId) || 0);
    });
    return this;
  }

  stop() {
    if (this.source) this.source.close();
    this.source = null;
  }
}
