#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/core/machines-doc.py DUMP MACHINES_MD - docs/machines.md against the
built-in models as the library has them (DUMP: tests/core/machines-dump.c's
JSON). For every built-in: its section's table rows give each figure's
value, its range ("lo..hi (estimate|sources)") or "-" for a single source;
a figure the section does not list comes from the model its "The rest as
`X`." names. Fails when a value or a range differs, a figure is in neither,
a figure marked estimate has no range, or a value is outside its range."""
import json
import re
import subprocess
import sys

TOPOLOGY = {"sockets", "cores_per_socket"}  # stated in each section's prose
ROW = re.compile(r"^\|([^|]*)\|([^|]*)\|([^|]*)\|(.*)\|\s*$")
RANGE = re.compile(r"^(\d+)\.\.(\d+) \((estimate|sources)\)$")


def sections(text):
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^## (\S+)\s*$", line)
        if m:
            name = m.group(1)
            out[name] = {"rows": {}, "rest": None}
            continue
        if name is None:
            continue
        m = re.search(r"The rest as `([^`]+)`", line)
        if m:
            out[name]["rest"] = m.group(1)
        m = ROW.match(line)
        if not m or m.group(1).strip() in ("field", "---"):
            continue
        names = re.findall(r"`([a-z_0-9]+)`", m.group(1))
        val = re.match(r"\s*(\d+)", m.group(2))
        for f in names:
            out[name]["rows"][f] = (int(val.group(1)) if val else None, m.group(3).strip(),
                                    m.group(4).strip())
    return out


def row_of(secs, name, field, seen=()):
    s = secs.get(name)
    if s is None or name in seen:
        return None
    if field in s["rows"]:
        return s["rows"][field]
    return row_of(secs, s["rest"], field, seen + (name,)) if s["rest"] else None


def main():
    dump = json.loads(subprocess.run([sys.argv[1]], check=True, capture_output=True,
                                     text=True).stdout)
    with open(sys.argv[2]) as f:
        secs = sections(f.read())
    errs = []
    for name, model in dump.items():
        if name not in secs:
            errs.append(f"{name}: no section '## {name}'")
            continue
        for field, value in model["fields"].items():
            if field in TOPOLOGY:
                continue
            row = row_of(secs, name, field)
            if row is None:
                errs.append(f"{name}: {field} is in no table (nor in its 'The rest as')")
                continue
            dval, drange, source = row
            if dval != value:
                errs.append(f"{name}: {field} documented {dval}, built-in {value}")
            lib = model["ranges"].get(field)
            if drange == "-":
                if lib:
                    errs.append(f"{name}: {field} has range {lib} in the library, '-' here")
                if re.search(r"\bestimate\b", source):
                    errs.append(f"{name}: {field} is marked estimate but has no range")
                continue
            m = RANGE.match(drange)
            if not m:
                errs.append(f"{name}: {field}: range '{drange}' is not 'lo..hi (basis)' or '-'")
                continue
            doc = [int(m.group(1)), int(m.group(2)), m.group(3)]
            if doc != lib:
                errs.append(f"{name}: {field} range documented {doc}, library {lib}")
            if not doc[0] <= value <= doc[1]:
                errs.append(f"{name}: {field} = {value} outside its range {doc[0]}..{doc[1]}")
        for field in model["ranges"]:
            if field not in model["fields"]:
                errs.append(f"{name}: range for unknown field {field}")
    for e in errs:
        print("FAIL", e)
    print(f"{len(dump)} models, {sum(len(m['fields']) for m in dump.values())} figures checked")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
