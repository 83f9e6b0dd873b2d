# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers for the tests of tlbgen-bench: run a command with its results
directory in a temporary place, and read the figures from results.json,
never from the printed text (what a run prints, it recorded there first)."""
import json
import os
import subprocess
import tempfile

_fails = []


def fail(msg):
    print("FAIL: " + msg)
    _fails.append(msg)


def ok(msg):
    print("ok: " + msg)


def check(cond, msg):
    (ok if cond else fail)(msg)
    return cond


def status():
    """The exit status of the test: 1 after any fail()."""
    return 1 if _fails else 0


class Run:
    """One tlbgen-bench run: rc, stdout, stderr, and its results and meta
    documents (None when it kept none)."""

    def __init__(self, bench, args, keep=True, timeout=600, env=None):
        self.tmp = tempfile.mkdtemp(prefix="tlbgen-test-")
        self.dir = os.path.join(self.tmp, "out")
        cmd = [bench] + (["--out", self.dir] if keep else ["--no-out"]) + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        self.cmd, self.rc, self.out, self.err = cmd, p.returncode, p.stdout, p.stderr
        self.results = self.meta = None
        for name in ("results", "meta"):
            path = os.path.join(self.dir, name + ".json")
            if os.path.exists(path):
                with open(path) as f:
                    setattr(self, name, json.load(f))

    @classmethod
    def of_dir(cls, path):
        """The documents of a results directory another process kept."""
        self = cls.__new__(cls)
        self.dir, self.results, self.meta = path, None, None
        for name in ("results", "meta"):
            f = os.path.join(path, name + ".json")
            if os.path.exists(f):
                with open(f) as fp:
                    setattr(self, name, json.load(fp))
        return self

    def metrics(self, name, **params):
        """Every metric `name` whose params include `params`."""
        return [m for m in (self.results or {}).get("metrics", [])
                if m["name"] == name and all(m["params"].get(k) == v for k, v in params.items())]

    def value(self, name, **params):
        """The value of the one metric `name` with these params (None if not one)."""
        m = self.metrics(name, **params)
        return m[0]["value"] if len(m) == 1 else None

    def values(self, name, key, **params):
        """{params[key]: value} over the metrics `name` with these params."""
        return {m["params"][key]: m["value"] for m in self.metrics(name, **params)}

    def figures(self):
        """Every metric but the host's timing, for comparing two runs."""
        return sorted(json.dumps(m, sort_keys=True) for m in (self.results or {}).get("metrics", [])
                      if m["name"] not in ("host_seconds",))

    def show(self):
        print("  $ " + " ".join(self.cmd) + "\n  exit %d; stderr:\n%s" % (self.rc, self.err[-2000:]))
