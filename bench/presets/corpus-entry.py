#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/presets/corpus-entry.py RESULTS_DIR [CORPUS] - record the model's prediction
at entry for every corpus row that has none, from a `tlbgen-bench validate`
run (RESULTS_DIR/results.json and meta.json). Run it in the commit that adds
the rows, before any model change they motivate; a row's entry is never
overwritten. CORPUS defaults to bench/presets/corpus.json beside this script.

    build/bench/tlbgen-bench --out /tmp/v validate
    python3 bench/presets/corpus-entry.py /tmp/v
"""
import json
import os
import sys


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    res_dir = argv[0]
    corpus = argv[1] if len(argv) == 2 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.json")
    with open(os.path.join(res_dir, "results.json")) as f:
        metrics = json.load(f)["metrics"]
    with open(os.path.join(res_dir, "meta.json")) as f:
        model = json.load(f)["tool"]["git_describe"]
    with open(corpus) as f:
        doc = json.load(f)

    def get(name, row):
        return next((m["value"] for m in metrics if m["name"] == name and
                     m["params"] == {"workload": "validate", "row": row}), None)

    added = 0
    for r in doc["rows"]:
        if "entry" in r:
            continue
        rate, chg = get("model_base_rate", r["id"]), get("model_change_pct", r["id"])
        if rate is None or chg is None:
            print(f"corpus-entry: row '{r['id']}': not in {res_dir}", file=sys.stderr)
            return 1
        r["entry"] = {"model": model, "rate": float(f"{rate:.6g}"),
                      "change_pct": round(chg, 2)}
        added += 1
    with open(corpus, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"corpus-entry: {added} rows given their prediction at entry ({model})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
