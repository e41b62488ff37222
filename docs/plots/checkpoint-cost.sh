#!/bin/sh
# Checkpoint cost of a sample (docs/benchmarks.md, 'Checkpoints and restarts'): runs it through an engine
# started with 'bin/mpflc up --hosts 3 --port 18234 --data /tmp/ckpt-bench/data' and prints the run's
# checkpoint figures from GET /api/runs/{id}. Run from the repository's root.
# usage: run.sh SAMPLE EVERY PARAMS... ; prints one line: sample, every, run summary and checkpoint figures
S=$1; E=$2; shift 2
P=""
for p in "$@"; do P="$P --param $p"; done
OUT=$(bin/mpflc run samples/$S/$S.mpfl.xml --engine http://127.0.0.1:18234 --data /tmp/ckpt-bench/data --json --param checkpointEvery=$E $P 2>/dev/null | tail -1)
ID=$(echo "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')
curl -s http://127.0.0.1:18234/api/runs/$ID | python3 -c '
import json,sys
d=json.load(sys.stdin); c=[x for x in d["checkpoints"] if x["complete"]]
n=d["checkpointsTaken"]
b=sum(x["bytes"] for x in c)/len(c) if c else 0
span=sum(x["spanMs"] for x in c)/len(c) if c else 0
rms=[x.get("rankMs") for x in c if x.get("rankMs") is not None]
print("'$S' every='$E'", d["state"], "elapsedMs=%d" % d["elapsedMs"], "checkpoints=%d" % n, "bytes/ckpt=%.0f" % b,
      "partsSpanMs/ckpt=%.1f" % span, "slowestRankMs/ckpt=%.1f" % (sum(rms)/len(rms) if rms else -1), json.dumps(d["outputs"]))'
