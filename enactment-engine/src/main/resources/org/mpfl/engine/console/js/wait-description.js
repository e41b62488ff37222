// Turns what a blocked rank waits for into labelled parts: the operation, the peer rank, the tag,
// the communicator, the root. The interpreter reports for example
//   "receive from 3 tag 0 comm world", "receive from 5 (rank 1 of node) tag any comm node",
//   "ssend to 2 tag 4 comm world", "allreduce comm world (4 ranks)",
//   "broadcast with root 0 comm world (4 ranks)", "barrier as its root comm grid (6 ranks)",
// and joins the waits of parallel branches with "; ".

const COLLECTIVE = /^(barrier|bcast|broadcast|scatterv?|gatherv?|allgatherv?|reduce|allreduce|reduce[-_]?scatter|alltoallv?|scan|exscan|split|cartesian)\b/i;

function match(text, regex) {
  const m = regex.exec(text);
  return m ? m[1] : null;
}

/** The peer as the interpreter names it: a world rank, optionally "(rank r of comm)". */
function peer(text, keyword) {
  return match(text, new RegExp('\\b' + keyword + '\\s+(?:rank\\s+)?(any rank|nobody \\(-1\\)|\\d+(?: \\(rank \\d+ of [^)]+\\))?)', 'i'));
}

/**
 * One wait.
 * @returns {{kind: 'receive'|'send'|'collective'|'other', op: string, peer: ?string, tag: ?string,
 *            comm: ?string, root: ?string, text: string}}
 */
export function describeWait(text) {
  const t = String(text || '').trim();
  const op = (t.split(/\s+/)[0] || '').toLowerCase();
  const comm = match(t, /\bcomm(?:unicator)?\s+([^\s;,()]+)/i);
  const tag = match(t, /\btag\s+(\S+)/i);
  if (/^(?:receive|recv|irecv|sendrecv|probe|wait)\b/i.test(t) && /\b(?:from|source)\b/i.test(t)) {
    return {kind: 'receive', op, peer: peer(t, 'from') || peer(t, 'source'), tag, comm, root: null, text: t};
  }
  if (/^(?:send|ssend|isend|bsend|store|bstore)\b/i.test(t)) {
    return {kind: 'send', op, peer: peer(t, 'to'), tag, comm, root: null, text: t};
  }
  if (COLLECTIVE.test(t)) {
    const root = /\bas its root\b/i.test(t) ? 'itself' : peer(t, 'root');
    return {kind: 'collective', op, peer: null, tag: null, comm, root, ranks: match(t, /\((\d+) ranks?\)/), text: t};
  }
  return {kind: 'other', op, peer: null, tag, comm, root: null, text: t};
}

/** Every wait of a report (parallel branches of one rank are joined with "; "). */
export function describeWaits(text) {
  return String(text || '').split(/\s*;\s+/).filter(Boolean).map(describeWait);
}
