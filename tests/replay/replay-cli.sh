#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tlbgen-bench replay on a committed recording: the what-if table's figures
# and the check's counts are in results.json (read here, never the printed
# text), with every CPU and reason; virtual mode adds the flush CPU time;
# bad arguments and bad traces exit 2.
# usage: replay-cli.sh TLBGEN-BENCH CHECK-RESULTS.PY FIXTURE-DIR
set -u
bench=$1 check=$2 fx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

"$bench" --out "$tmp/a" replay "$fx/tlbflush-2t" -p v5.17 -p v6.0 -p latest >"$tmp/a.out" 2>&1 ||
	no "replay -p v5.17 -p v6.0 -p latest: exit $?"
"$bench" --out "$tmp/v" replay "$fx/tlbflush-2t" -p v6.18 --mode virtual --machine skylake-56 \
	>"$tmp/v.out" 2>&1 || no "replay --mode virtual: exit $?"
"$bench" --out "$tmp/k" replay "$fx/tlbflush-2t-pcid" --mode virtual --machine skylake-56 \
	>"$tmp/k.out" 2>&1 || no "replay tlbflush-2t-pcid --mode virtual: exit $?"
python3 "$check" --workload replay "$tmp/a" "$tmp/v" "$tmp/k" || no "results directories off their schema"
python3 - "$tmp/a/results.json" "$tmp/v/results.json" "$tmp/k/results.json" <<'PY' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))["metrics"]
v = json.load(open(sys.argv[2]))["metrics"]
k = json.load(open(sys.argv[3]))["metrics"]
bad = []
def get(ms, name, **p):
    return [m["value"] for m in ms if m["name"] == name and
            all(m["params"].get(k) == x for k, x in p.items())]
for prof in ("v5.17", "v6.0", "latest"):
    for name in ("agreement", "flush_requests", "ipis", "hypercall_targets", "switch_flushes"):
        if len(get(a, name, profile=prof)) != 1:
            bad.append(f"{name} of {prof}: not one metric")
    for cpu in (0, 1):
        for reason in range(6):
            for name in ("recorded", "replayed", "matched"):
                if len(get(a, name, profile=prof, cpu=cpu, reason=reason)) != 1:
                    bad.append(f"{name} cpu {cpu} reason {reason} of {prof} missing")
# The check adds up: the recorded events are the same under every profile,
# matched never exceeds either side, agreement = matched / (recorded + replayed - matched).
for prof in ("v5.17", "latest"):
    rec = sum(get(a, "recorded", profile=prof))
    rep = sum(get(a, "replayed", profile=prof))
    mat = sum(get(a, "matched", profile=prof))
    agr = get(a, "agreement", profile=prof)[0]
    if abs(agr - mat / (rec + rep - mat)) > 1e-9:
        bad.append(f"{prof}: agreement {agr} != matched/(recorded+replayed-matched)")
if sum(get(a, "recorded", profile="v5.17")) != sum(get(a, "recorded", profile="latest")):
    bad.append("recorded events differ between profiles")
if get(a, "flush_requests", profile="v5.17") != get(a, "flush_requests", profile="latest"):
    bad.append("the same recorded work has different flush requests")
if get(a, "agreement", profile="latest")[0] < 0.95:
    bad.append("latest (= v6.18 here) does not agree with its own kernel")
if get(a, "agreement", profile="v5.17")[0] >= get(a, "agreement", profile="latest")[0]:
    bad.append("v5.17 agrees with a 6.18 kernel as well as latest does")
t = get(v, "flush_cpu_time", profile="v6.18")
if len(t) != 1 or not t[0] > 0:
    bad.append(f"virtual: flush_cpu_time {t}")
if get(a, "flush_cpu_time"):
    bad.append("stepped mode recorded a flush CPU time")
# Remote flushes timed from the csd events: the KVM guest's IPIs give them,
# recorded and modelled alike; the PVM guest's hypercall flushes queue no csd.
rn, mn = get(k, "remote_flushes_timed", source="recorded"), get(k, "remote_flushes_timed", source="model")
if len(rn) != 1 or len(mn) != 1 or not rn[0] > 1000 or abs(mn[0] - rn[0]) > 0.01 * rn[0]:
    bad.append(f"KVM guest: remote flushes timed, recorded {rn}, model {mn}")
for src in ("recorded", "model"):
    p50, p90 = get(k, "remote_flush_ns_p50", source=src), get(k, "remote_flush_ns_p90", source=src)
    if len(p50) != 1 or len(p90) != 1 or not 0 < p50[0] <= p90[0]:
        bad.append(f"KVM guest: {src} median {p50}, p90 {p90}")
if get(a, "remote_flushes_timed", source="recorded") != [0.0] * 3 or get(a, "remote_flushes_timed", source="model"):
    bad.append("PVM guest, stepped: remote flushes timed where none queued a csd, or by the model")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep -q 'agreement' "$tmp/a.out" || no "no check printed"

# Bad arguments and bad traces: exit 2, a reason, nothing replayed.
for args in "" "$fx/tlbflush-2t --mode threaded" "$fx/tlbflush-2t --bogus" \
	    "$fx/nonexistent" "$fx/README"; do
	# shellcheck disable=SC2086
	"$bench" --no-out replay $args >"$tmp/o" 2>&1
	rc=$?
	[ $rc -eq 2 ] || no "replay $args: exit $rc, want 2"
	grep -q -e 'replay' -e '--mode' "$tmp/o" || no "replay $args: no message"
done
"$bench" --no-out replay "$fx/tlbflush-2t" -p no-such-profile >/dev/null 2>&1
[ $? -eq 2 ] || no "an unknown profile: want exit 2 (a bad argument)"
[ $fail -eq 0 ] && echo "replay CLI: ok"
exit $fail
