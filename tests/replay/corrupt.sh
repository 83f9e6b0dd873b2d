#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Corrupt recordings, made here from a committed fixture at fixed offsets:
# each class exits 2 with its reason on stderr, and none crashes or
# replays wrong data silently. Version 6 uncompressed copies (whose pages
# can be changed one field at a time) need trace-cmd convert; without
# trace-cmd those cases are left out and said so.
# usage: corrupt.sh TLBGEN-BENCH FIXTURE-DIR
set -u
bench=$1 fx=$2/tlbflush-2t
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

# refused NAME PATH REASON: exit 2 and REASON (a fixed string) on stderr.
refused() {
	"$bench" --no-out replay "$2" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] || no "$1: exit $rc, want 2 ($(tail -1 "$tmp/out"))"
	grep -qF -- "$3" "$tmp/out" || no "$1: stderr does not say '$3': $(tail -1 "$tmp/out")"
}
# copy NAME: a copy of the fixture's directory, snapshot and all.
copy() { rm -rf "$tmp/$1"; cp -r "$fx" "$tmp/$1"; }
# edit FILE PYTHON: change FILE's bytes b (a bytearray) in place.
edit() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
f = sys.argv[1]
b = bytearray(open(f, "rb").read())
exec(sys.argv[2])
open(f, "wb").write(b)
PY
}

"$bench" --out "$tmp/ref" replay "$fx" >/dev/null 2>&1 || no "the fixture itself: exit $?"

# Truncated: in a CPU's data, and in the options.
copy cut; edit "$tmp/cut/trace.dat" 'del b[140000:]'
refused truncated "$tmp/cut" "truncated at byte 140000"
copy cut2; edit "$tmp/cut2/trace.dat" 'del b[150000:]'
refused "truncated (options)" "$tmp/cut2" "truncated at byte 150000"
# Flipped bytes in CPU 0's (zstd) data.
copy flip; edit "$tmp/flip/trace.dat" 'for k in range(20): b[131172 + 97 * k] ^= 0xff'
refused "flipped CPU data" "$tmp/flip" "CPU 0: chunk 0 at byte 131076 does not decompress"
# Flipped bytes in the headers: version, page size, options offset, a
# section's size, the magic.
copy h1; edit "$tmp/h1/trace.dat" 'b[10] = ord("8")'
refused "header: version" "$tmp/h1" "file version '8'"
copy h2; edit "$tmp/h2/trace.dat" 'b[14] ^= 0x01'
refused "header: page size" "$tmp/h2" "a page size of 4097 bytes"
copy h3; edit "$tmp/h3/trace.dat" 'b[33] ^= 0x40'
refused "header: options offset" "$tmp/h3" "truncated at byte 155356"
copy h4; edit "$tmp/h4/trace.dat" 'b[37 + 12] ^= 0x10'
refused "header: a section's size" "$tmp/h4" "truncated at byte 155356: a section runs to byte"
copy h5; edit "$tmp/h5/trace.dat" 'b[1] ^= 0x20'
refused "header: magic" "$tmp/h5" "not a trace-cmd trace.dat file"
# A directory without trace.dat.
copy none; rm "$tmp/none/trace.dat"
refused "no trace.dat" "$tmp/none" "no trace.dat in $tmp/none"
# machine.txt: an unknown key, a bad number, a value out of range, garbage.
for m in "pcid maybe|line 4: pcid 'maybe' is not 0 or 1" \
	 "warp 9|line 4: unknown key 'warp'" \
	 "hz 99999|line 4: hz '99999'" \
	 "pv_flush_tlb_multi xen|line 4: pv_flush_tlb_multi 'xen'" \
	 "pcid|line 4: 'pcid' has no value" \
	 "invlpgb 0 1|line 4: 'invlpgb' has more than one value"; do
	copy mach
	sed -i "4s/.*/${m%%|*}/" "$tmp/mach/machine.txt"
	refused "machine.txt: ${m%%|*}" "$tmp/mach" "$tmp/mach/machine.txt ${m#*|}"
done
copy mach; head -c 300 "$fx/trace.dat" > "$tmp/mach/machine.txt"
refused "machine.txt: binary" "$tmp/mach" "$tmp/mach/machine.txt line 1:"

# randoms NAME DIR SEEDS PYTHON-RANGE: copies of DIR with 20 random bits
# flipped in b[range] (seeded); each is refused with a reason (exit 2), or
# replays exactly as the original (the bits changed nothing replay reads).
randoms() {
	"$bench" --out "$tmp/ref-$1" replay "$2" >/dev/null 2>&1 || no "$1: the original: exit $?"
	for s in $3; do
		rm -rf "$tmp/r"; cp -r "$2" "$tmp/r"
		edit "$tmp/r/trace.dat" "import random
r = random.Random($s)
lo, hi = $4
for k in range(20): b[r.randrange(lo, hi)] ^= 1 << r.randrange(8)"
		"$bench" --out "$tmp/o" replay "$tmp/r" >"$tmp/out" 2>&1
		rc=$?
		if [ $rc -eq 2 ]; then
			grep -qF "$tmp/r/trace.dat: " "$tmp/out" ||
				no "$1 $s: no reason: $(tail -1 "$tmp/out")"
		elif [ $rc -eq 0 ]; then
			python3 -c "
import json, sys
a, b = (json.load(open(f))['metrics'] for f in sys.argv[1:])
sys.exit(a != b)" "$tmp/ref-$1/results.json" "$tmp/o/results.json" ||
				no "$1 $s: exit 0 with other figures than the original's"
		else
			no "$1 $s: exit $rc"
		fi
		rm -rf "$tmp/o"
	done
}
# The user's case: 20 random bits flipped past the header, anywhere, and
# in the CPUs' (zstd) data.
randoms "random bits" "$fx" "1 2 3 4" "64, len(b)"
randoms "random bits in CPU data" "$fx" "5 6 7 8 9 10" "131072, 155141"

# Version 6 without compression: one field of one page at a time.
if ! command -v trace-cmd >/dev/null; then
	echo "note: no trace-cmd: the version 6 cases are left out"
else
	copy v6
	trace-cmd convert -i "$fx/trace.dat" -o "$tmp/v6/trace.dat" --file-version 6 \
		--compression none >/dev/null 2>&1 || no "trace-cmd convert failed"
	"$bench" --no-out replay "$tmp/v6" >/dev/null 2>&1 || no "the version 6 copy: exit $?"
	# CPU 0's data: after the flyrecord offsets.
	cpu0="struct.unpack_from('<Q', b, b.index(b'flyrecord\\0') + 10)[0]"
	cpu1="struct.unpack_from('<Q', b, b.index(b'flyrecord\\0') + 26)[0]"
	for c in "commit|struct.pack_into('<Q', b, $cpu0 + 3 * 4096 + 8, 0xffff)|CPU 0 page 3: 65535 bytes of events in a 4096-byte page" \
		 "backwards|struct.pack_into('<Q', b, $cpu0 + 5 * 4096, 0)|CPU 0 timestamps go backwards at event 704 (page 5)" \
		 "span|o = $cpu1 + 26 * 4096; struct.pack_into('<Q', b, o, struct.unpack_from('<Q', b, o)[0] + (1 << 50))|the events span 1125900 s" \
		 "event count|i = b.index(b'commit;\\toffset:8;\\tsize:8;'); b[i + 23] = ord('4')|CPU 0: libtracecmd read 1084 events where its pages hold 3637" \
		 "libtracecmd crash|i = b.index(b'__print_flags(REC->buf_flags'); b[i + 22] = ord('^')|libtracecmd crashed reading it (signal 11" \
		 "truncated|del b[len(b) - 10:]|truncated at byte 2256886: CPU 1's data runs to byte 2256896"; do
		name=${c%%|*} rest=${c#*|}
		rm -rf "$tmp/v6x"; cp -r "$tmp/v6" "$tmp/v6x"
		edit "$tmp/v6x/trace.dat" "${rest%|*}"
		refused "v6: $name" "$tmp/v6x" "${rest##*|}"
	done
	# 20 random bits in the uncompressed CPU data: a page, a time or a
	# field out of range.
	randoms "v6: random bits in CPU data" "$tmp/v6" "1 2 3 4 5 6 7 8 9 10 11 12" \
		"struct.unpack_from('<Q', b, b.index(b'flyrecord\\0') + 10)[0], len(b)"
fi
[ $fail -eq 0 ] && echo "corrupt recordings: ok"
exit $fail
