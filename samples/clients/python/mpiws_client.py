#!/usr/bin/python3
"""A non-Java MPIWS client: calls a generated MPFL service through its WSDL with zeep.

It loads the service's WSDL (the running service's ``?wsdl`` or the ``META-INF/SERVICE.wsdl`` file
shipped in the ``.aar``), then calls

  status   the state, progress and counters of one rank (a read: the unguessable domain ID is what
           authorises it); with the domain token also its outputs and failure message (the request then
           carries the proof HMAC-SHA256(token, "MPIWS-status-1" || int32 length of the UTF-8 domain ID ||
           domain ID || int32 rank); without it, or with a wrong one, the host leaves them out),
  abort    aborts a domain (needs the domain token: the proof is HMAC-SHA256(token, "MPIWS-abort-1" ||
           domain ID)),
  store    sends one message to a rank, as if from another rank of the domain (needs the domain token:
           the proof is the HMAC of the message header, see docs/wire-format.md).

The domain token is a secret: it is read from a file (--token-file) or the environment variable
MPIWS_DOMAIN_TOKEN, never from the command line (which every user of the machine sees in ps).
It is used here only as the HMAC key; it is never sent. status uses it when one of the two gives it.

Usage (Debian: apt-get install python3-zeep; run with /usr/bin/python3):

  mpiws_client.py --wsdl URL|FILE [--address URL] status --domain=D --rank R [--token-file F]
  mpiws_client.py --wsdl URL|FILE [--address URL] abort --domain=D --token-file F
  mpiws_client.py --wsdl URL|FILE [--address URL] store --domain=D --token-file F --from R --to R
                  [--tag T] [--seq N] [--context C] (--int V | --long V | --double V | --string S | --bytes-hex H)

Write --domain=D with "=": a domain ID is base64url and may begin with "-", which
"--domain D" would take for an option.

status prints one JSON object (without a token: "outputs" is empty and "failure" null, and a note on
stderr says why); store and abort print "ok". A SOAP fault prints "fault: SUBCODE: reason"
on stderr and exits with 1 (e.g. "fault: Rejected: ..." for a wrong token).
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import struct
import sys

import zeep
import zeep.exceptions

NS = "urn:mpfl:mpiws"
STORE_LABEL = b"MPIWS-store-1"
ABORT_LABEL = b"MPIWS-abort-1"
STATUS_LABEL = b"MPIWS-status-1"
#: Envelope.Kind ordinals (the kind byte of the proof) and the WSDL's m:Kind names
KINDS = {"DATA": 0, "SYNC_DATA": 1, "SYNC_ACK": 2, "BSTORE": 3}


def store_proof(token, domain_id, context, sender, receiver, tag, seq, kind="DATA"):
    """org.mpfl.protocol.DomainToken.prove: HMAC-SHA256 keyed with the token's ASCII bytes over
    "MPIWS-store-1" || int32 length of the UTF-8 domain ID || the domain ID || context, from, to, tag
    (int32) || seq (int64) || kind ordinal (one byte); all integers big-endian."""
    domain = domain_id.encode("utf-8")
    header = (STORE_LABEL + struct.pack(">i", len(domain)) + domain
              + struct.pack(">iiiiqB", context, sender, receiver, tag, seq, KINDS[kind]))
    return hmac.new(token.encode("ascii"), header, hashlib.sha256).digest()


def abort_proof(token, domain_id):
    """org.mpfl.protocol.DomainToken.proveAbort: HMAC-SHA256(token, "MPIWS-abort-1" || UTF-8 domain ID)."""
    return hmac.new(token.encode("ascii"), ABORT_LABEL + domain_id.encode("utf-8"), hashlib.sha256).digest()


def status_proof(token, domain_id, rank):
    """org.mpfl.protocol.DomainToken.proveStatus: HMAC-SHA256 keyed with the token's ASCII bytes over
    "MPIWS-status-1" || int32 length of the UTF-8 domain ID || the domain ID || rank (int32); big-endian."""
    domain = domain_id.encode("utf-8")
    message = STATUS_LABEL + struct.pack(">i", len(domain)) + domain + struct.pack(">i", rank)
    return hmac.new(token.encode("ascii"), message, hashlib.sha256).digest()


def encode_payload(args):
    """A value in MPIWS's payload encoding (docs/wire-format.md): scalars little-endian."""
    if args.int is not None:
        return "INT", struct.pack("<i", args.int)
    if args.long is not None:
        return "LONG", struct.pack("<q", args.long)
    if args.double is not None:
        return "DOUBLE", struct.pack("<d", args.double)
    if args.string is not None:
        return "STRING", args.string.encode("utf-8")
    if args.bytes_hex is not None:
        return "BYTES", bytes.fromhex(args.bytes_hex)
    return "NULL", b""


class MpiwsService:
    """One MPIWS service, described by its WSDL."""

    def __init__(self, wsdl, address=None, timeout=30):
        # DTDs and external entities off: a WSDL is input from the network
        settings = zeep.Settings(strict=True, forbid_dtd=True, forbid_entities=True, forbid_external=True)
        transport = zeep.Transport(timeout=timeout, operation_timeout=timeout)
        self.client = zeep.Client(wsdl, settings=settings, transport=transport)
        binding = "{%s}MpiwsSoap12Binding" % NS
        self.service = (self.client.create_service(binding, address) if address
                        else self.client.service)

    def status(self, domain_id, rank, token=None):
        """The rank's status as a dict: state, progress, counters (JSON text), outputs, failure. Outputs and
        failure only with the domain token (the host leaves them out of an answer to a request without its proof)."""
        proof = {"proof": status_proof(token, domain_id, rank)} if token else {}
        r = self.service.status(domainId=domain_id, rank=rank, **proof)
        outputs = {o["name"]: o["_value_1"] for o in (r["output"] or [])}
        progress = None
        if r["progress"] is not None:
            progress = {"value": r["progress"]["value"], "total": r["progress"]["total"]}
        return {"state": r["state"], "progress": progress, "counters": r["counters"],
                "outputs": outputs, "failure": r["failure"]}

    def abort(self, domain_id, token):
        self.service.abort(domainId=domain_id, proof=abort_proof(token, domain_id))

    def store(self, domain_id, token, sender, receiver, payload_type, payload, tag=0, seq=0, context=0):
        """One message (kind DATA) to rank `receiver`, as from rank `sender`; `seq` counts the messages
        from `sender` to `receiver` in `context`, from 0 (a repeated seq is dropped as a duplicate)."""
        self.service.store(domainId=domain_id, context=context, **{"from": sender}, to=receiver, tag=tag, seq=seq,
                           kind="DATA", proof=store_proof(token, domain_id, context, sender, receiver, tag, seq),
                           type=payload_type, length=len(payload), payload=payload)


def fault_text(fault):
    """'SUBCODE: reason' of a SOAP 1.2 fault (m:Rejected, m:Busy, m:Malformed), or the reason alone."""
    subcode = None
    if fault.subcodes:
        subcode = fault.subcodes[0].localname
    return (subcode + ": " if subcode else "") + str(fault.message)


def read_token(path, required=True):
    """The domain token from the file or $MPIWS_DOMAIN_TOKEN; None if neither gives one and it is not required."""
    if path:
        with open(path, encoding="ascii") as f:
            return f.read().strip()
    token = os.environ.get("MPIWS_DOMAIN_TOKEN", "").strip()
    if not token and required:
        raise SystemExit("mpiws_client: the domain token comes from --token-file F or $MPIWS_DOMAIN_TOKEN")
    return token or None


def main(argv=None):
    p = argparse.ArgumentParser(description="Call an MPIWS service through its WSDL (zeep).")
    p.add_argument("--wsdl", required=True, help="the service's ?wsdl URL or the WSDL file of its archive")
    p.add_argument("--address", help="the service's SOAP address (overrides the WSDL's, e.g. for the archive's file)")
    p.add_argument("--timeout", type=float, default=30, help="seconds to wait for each call (default 30)")
    ops = p.add_subparsers(dest="op", required=True)
    s = ops.add_parser("status")
    s.add_argument("--domain", required=True)
    s.add_argument("--rank", type=int, required=True)
    s.add_argument("--token-file", help="the domain token, for the rank's outputs and failure message")
    a = ops.add_parser("abort")
    a.add_argument("--domain", required=True)
    a.add_argument("--token-file")
    st = ops.add_parser("store")
    st.add_argument("--domain", required=True)
    st.add_argument("--token-file")
    st.add_argument("--from", dest="sender", type=int, required=True)
    st.add_argument("--to", dest="receiver", type=int, required=True)
    st.add_argument("--tag", type=int, default=0)
    st.add_argument("--seq", type=int, default=0)
    st.add_argument("--context", type=int, default=0, help="0: the world communicator")
    value = st.add_mutually_exclusive_group()
    value.add_argument("--int", type=int)
    value.add_argument("--long", type=int)
    value.add_argument("--double", type=float)
    value.add_argument("--string")
    value.add_argument("--bytes-hex")
    args = p.parse_args(argv)

    service = MpiwsService(args.wsdl, args.address, args.timeout)
    try:
        if args.op == "status":
            token = read_token(args.token_file, required=False)
            if token is None:
                print("mpiws_client: no domain token (--token-file F or $MPIWS_DOMAIN_TOKEN): the host answers state, "
                      "progress and counters only, not the rank's outputs and failure message", file=sys.stderr)
            print(json.dumps(service.status(args.domain, args.rank, token), sort_keys=True))
        elif args.op == "abort":
            service.abort(args.domain, read_token(args.token_file))
            print("ok")
        else:
            payload_type, payload = encode_payload(args)
            service.store(args.domain, read_token(args.token_file), args.sender, args.receiver, payload_type, payload,
                          args.tag, args.seq, args.context)
            print("ok")
    except zeep.exceptions.Fault as f:
        print("fault: " + fault_text(f), file=sys.stderr)
        return 1
    except zeep.exceptions.TransportError as e:
        print("transport error: HTTP %s: %s" % (e.status_code, e.message), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
