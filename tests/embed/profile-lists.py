#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""profile-lists.py TLBGEN-BENCH SRCDIR - hand-written lists of the built-in
profiles agree with the data (lib/core/profile.c, as tlbgen_profile_names()
returns it through `tlbgen-bench WORKLOAD --help`): docs/policies.md names
every one or points to tlbgen_profile_names(), and no paragraph of a public header or a doc that names four or
more of them outside a table leaves one out (say "tlbgen_profile_names()" or link
docs/versions.md instead of a list that goes stale)."""
import glob
import os
import re
import subprocess
import sys

bench, src = sys.argv[1], sys.argv[2]
out = subprocess.run([bench, "tlb_flush1", "--help"], capture_output=True, text=True,
                     check=True).stdout
m = re.search(r"profiles: (.*?)\n(?!\s{20,}\S)", out, re.S)
if not m:
    sys.exit("FAIL: no 'profiles:' list in tlbgen-bench tlb_flush1 --help")
names = m.group(1).split()
if len(names) < 5 or "latest" not in names:
    sys.exit(f"FAIL: implausible profile list from the data: {names}")
versioned = [n for n in names if n.startswith("v")]


def named(text):
    return {n for n in names if re.search(r"(?<![\w.-])" + re.escape(n) + r"(?![\w-]|\.\w)", text)}


fail = 0
pol = open(os.path.join(src, "docs", "policies.md")).read()
m = re.search(r"Built-in profiles\s+are (.*?)\(", pol, re.S)
got = named(m.group(1)) if m else set()
if "tlbgen_profile_names()" not in pol and got != set(names):
    print(f"FAIL: docs/policies.md neither points to tlbgen_profile_names() nor lists "
          f"every built-in profile: missing {sorted(set(names) - got)}")
    fail = 1
files = sorted(glob.glob(os.path.join(src, "include", "tlbgen", "*.h")) +
               glob.glob(os.path.join(src, "docs", "*.md")))
for f in files:
    if os.path.basename(f) in ("versions.md", "api.md"):  # generated from the data/headers
        continue
    text = open(f).read()
    if f.endswith(".h"):
        text = re.sub(r"^\s*\*(?: |$)", "", text, flags=re.M)
    for para in re.split(r"\n\s*\n", text):
        # A table's rows are examples, one profile per row, not a list.
        para = "\n".join(l for l in para.splitlines() if not l.lstrip().startswith("|"))
        got = named(para)
        if len(got & set(versioned)) >= 4 and got != set(names):
            print(f"FAIL: {os.path.relpath(f, src)}: a list of profiles without "
                  f"{sorted(set(names) - got)}: {para.strip()[:120]!r}")
            fail = 1
print(f"{len(names)} built-in profiles; {len(files)} headers and docs checked")
sys.exit(fail)
