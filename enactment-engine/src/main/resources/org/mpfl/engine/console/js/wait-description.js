// Turns what a blocked rank waits for ("receive from 3 tag 0 comm world", "allreduce comm world")
// into labelled parts: the operation, the peer rank, the tag, the communicator, the root.

const COLLECTIVE = /^(barrier|bcast|broadcast|scatterv?|gatherv?|allgatherv?|reduce|allreduce|reduce[-_]?scatter|alltoallv?|scan|exscan)\b/i;

function field(text, name) {
  const m = new RegExp('\\b' + name + '\\s+(\\S+)', 'i').exec(text);
  return m ? m[1].replace(/[,;)]$/, '') : null;
}

/**
 * @returns {{kind: 'receive'|'send'|'collective'|'other', op: string, peer: ?string, tag: ?string,
 *            comm: ?string, root: ?string, text: string}}
 */
export function describeWait(text) {
  const t = String(text || '').trim();
  const op = (t.split(/\s+/)[0] || '').toLowerCase();
  const comm = field(t, 'comm(?:unicator)?') || field(t, 'on');
  const tag = field(t, 'tag');
  if (/^(?:receive|recv|irecv|probe|wait)\b/i.test(t) && /\b(?:from|source)\b/i.test(t)) {
    return {kind: 'receive', op, peer: field(t, 'from(?:\\s+rank)?') || field(t, 'source'), tag, comm, root: null, text: t};
  }
  if (/^(?:send|ssend|isend|bsend|store|bstore)\b/i.test(t)) {
    return {kind: 'send', op, peer: field(t, 'to(?:\\s+rank)?'), tag, comm, root: null, text: t};
  }
  if (COLLECTIVE.test(t)) {
    return {kind: 'collective', op, peer: null, tag: null, comm, root: field(t, 'root'), text: t};
  }
  return {kind: 'other', op, peer: null, tag, comm, root: null, text: t};
}
