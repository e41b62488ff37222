// Which kind of work an activity is, for the timeline's colours: communicate (messaging, collectives,
// communicator creation, external invokes) or compute (everything else).

const COMMUNICATION = /^(?:send|isend|ssend|bsend|recv|receive|irecv|sendrecv|probe|iprobe|wait|waitall|waitany|test|store|bstore|barrier|bcast|broadcast|scatter|scatterv|gather|gatherv|allgather|allgatherv|reduce|allreduce|reduce[-_]?scatter|alltoall|alltoallv|scan|exscan|split|cartesian|dup|shift|halo|exchange|invoke)\b/i;

/** 'communicate' for messaging and collectives (and external invokes), 'compute' for the rest. */
export function activityKind(activity) {
  const name = String(activity || '').trim();
  return COMMUNICATION.test(name) ? 'communicate' : 'compute';
}
