#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Done-when of AMD INVLPGB (4afeb0ed1753): tlb_flush1 under latest at 4
# tasks on a machine with INVLPGB flushes the threads' mm by one INVLPGB and
# one TLBSYNC per flush, with no IPI and no flush_tlb_func, on a global ASID;
# v6.14 on the same machine, and latest without it, send IPIs as before.
# usage: invlpgb.sh TLBGEN-BENCH
bench=$1
fail=0
no() { echo "FAIL: $*"; fail=1; }
run="--no-out tlb_flush1 -t 4 -m threads -r 1 -d 200 -q --no-mesi"

# The INVLPGB table's row of one policy: flushes invlpgb tlbsync ipi avoided ftf asid.
row() { sed -n '/^## INVLPGB per flush/,/^  invlpgb/p' | awk -v p="$1" '$1 == "threads" && $3 == p { print $4, $5, $6, $7, $8, $9, $10 }'; }

out=$("$bench" $run -p latest -p v6.14 --invlpgb 2>/dev/null) || no "tlb_flush1 --invlpgb: exit $?"
set -- $(echo "$out" | row latest)
if [ $# -ne 7 ]; then
	no "latest --invlpgb: no INVLPGB row"
else
	echo "latest --invlpgb: flushes $1 invlpgb/fl $2 tlbsync/fl $3 ipi/fl $4 avoided/fl $5 ftf/fl $6 asid $7"
	[ "$1" -gt 0 ] || no "latest --invlpgb: no flushes"
	[ "$2" = 1.000 ] && [ "$3" = 1.000 ] || no "latest --invlpgb: invlpgb/tlbsync per flush $2/$3, want 1.000"
	[ "$4" = 0.000 ] || no "latest --invlpgb: $4 IPIs per flush, want 0.000"
	[ "$5" = 3.000 ] || no "latest --invlpgb: $5 IPIs avoided per flush, want 3.000"
	[ "$6" = 0.000 ] || no "latest --invlpgb: $6 flush_tlb_func per flush, want 0.000"
	[ "$7" -ge 6 ] || no "latest --invlpgb: global ASID $7, want >= 6 (TLB_NR_DYN_ASIDS)"
fi
set -- $(echo "$out" | row v6.14)
if [ $# -ne 7 ]; then
	no "v6.14 --invlpgb: no INVLPGB row"
else
	echo "v6.14 --invlpgb: flushes $1 invlpgb/fl $2 ipi/fl $4 ftf/fl $6 asid $7"
	[ "$2" = 0.000 ] && [ "$7" = 0 ] || no "v6.14 --invlpgb: used INVLPGB ($2 per flush, asid $7)"
	awk -v x="$4" 'BEGIN { exit !(x > 0) }' || no "v6.14 --invlpgb: no IPIs ($4 per flush)"
	[ "$6" = 4.000 ] || no "v6.14 --invlpgb: $6 flush_tlb_func per flush, want 4.000"
fi

# Off (the default machine): no INVLPGB table, IPIs as before.
out=$("$bench" $run -p latest 2>/dev/null) || no "tlb_flush1: exit $?"
echo "$out" | grep -q '^## INVLPGB' && no "latest without --invlpgb printed the INVLPGB table"
ipi=$(echo "$out" | sed -n '/^## counters per flush/,/^  rd\/fl/p' | awk '$1 == "threads" && $3 == "latest" { print $9 }')
echo "latest without --invlpgb: ipi/fl $ipi"
awk -v x="$ipi" 'BEGIN { exit !(x > 0) }' || no "latest without --invlpgb: ipi/fl '$ipi', want > 0"
exit $fail
