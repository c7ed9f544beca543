#!/usr/bin/python3
"""The steps of a GitHub Actions workflow, in the order a run takes them,
as files tests/integration/workflow.sh runs.

usage: workflow-steps.py WORKFLOW.yml OUTDIR

Jobs run in file order, each matrix entry in turn; a job without steps, or
that `needs` one not yet run, is an error, as is any `${{ }}` expression
other than `matrix.NAME` in a step that runs (`hashFiles` in a cache key is
left alone: a cache step does nothing here). For step N it writes OUTDIR/N.meta (lines:
job, matrix label, kind, name, if, the shell's `set` options) and
OUTDIR/N.body (a run step's script, or a `uses` step's `with` as KEY=VALUE
lines). Exit status 2 on a workflow it cannot run, with the reason.
"""
import itertools
import os
import re
import sys

import yaml


def fail(msg):
    print(f"workflow-steps: {msg}", file=sys.stderr)
    sys.exit(2)


def expand(text, matrix, where):
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("matrix.") and expr[7:] in matrix:
            return str(matrix[expr[7:]])
        fail(f"{where}: the expression ${{{{ {expr} }}}} is not one this runner knows")
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def yaml_text(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


# The options a runner's shell runs a step's script with (GitHub's workflow
# syntax, jobs.<job_id>.steps[*].shell): `bash -e {0}` when none is named,
# `bash --noprofile --norc -eo pipefail {0}` for `bash`, `sh -e {0}` for `sh`.
SHELL_OPTIONS = {None: "-e", "bash": "-eo pipefail", "sh": "-e"}


def shell_options(wf, job, step, where):
    shell = step.get("shell") or ((job.get("defaults") or {}).get("run") or {}).get("shell") or \
        ((wf.get("defaults") or {}).get("run") or {}).get("shell")
    if shell not in SHELL_OPTIONS:
        fail(f"{where}: shell {shell} is not one this runner knows")
    return SHELL_OPTIONS[shell]


def matrix_entries(job, name):
    m = (job.get("strategy") or {}).get("matrix")
    if not m:
        return [{}]
    if any(k in m for k in ("include", "exclude")):
        fail(f"job {name}: matrix include/exclude is not supported here")
    keys = list(m)
    return [dict(zip(keys, values)) for values in itertools.product(*(m[k] for k in keys))]


def main(path, outdir):
    with open(path) as f:
        wf = yaml.safe_load(f)
    jobs = wf.get("jobs") or fail("no jobs")
    os.makedirs(outdir, exist_ok=True)
    done, n = set(), 0
    for name, job in jobs.items():
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in done:
                fail(f"job {name} needs {need}, which comes later in the file")
        # A job runs at least one step (jobs.<job_id>.steps): one without
        # any would leave the run with nothing to check.
        if not job.get("steps"):
            fail(f"job {name} has no steps: there is nothing to run")
        for matrix in matrix_entries(job, name):
            label = ",".join(f"{k}={v}" for k, v in matrix.items()) or "-"
            for i, step in enumerate(job.get("steps") or []):
                where = f"job {name} step {i + 1}"
                options = "-e"
                if "run" in step:
                    kind, body = "run", expand(step["run"], matrix, where)
                    options = shell_options(wf, job, step, where)
                    title = step.get("name") or step["run"].splitlines()[0]
                elif "uses" in step:
                    kind = step["uses"].split("@")[0]
                    with_ = step.get("with") or {}
                    if kind == "actions/cache":
                        body = ""
                    else:
                        # One KEY=VALUE line per line of a value (a list of paths),
                        # booleans as the workflow spells them.
                        body = "".join(f"{k}={line}\n" for k, v in with_.items()
                                       for line in expand(yaml_text(v), matrix, where).split("\n") if line.strip())
                    title = step.get("name") or kind
                else:
                    fail(f"{where}: neither run nor uses")
                cond = str(step.get("if", "success()"))
                n += 1
                with open(os.path.join(outdir, f"{n:03d}.meta"), "w") as f:
                    f.write(f"{name}\n{label}\n{kind}\n{title}\n{cond}\n{options}\n")
                with open(os.path.join(outdir, f"{n:03d}.body"), "w") as f:
                    f.write(body)
        done.add(name)
    print(f"{n} steps in {len(jobs)} jobs")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: workflow-steps.py WORKFLOW.yml OUTDIR")
    main(sys.argv[1], sys.argv[2])
