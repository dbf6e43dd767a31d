#!/usr/bin/env python3
"""Runs an unmodified MPI program under libpcoll_mpi.so (mpiexec -x LD_PRELOAD=... with Open MPI,
mpiexec -genv LD_PRELOAD ... with MPICH's Hydra) and checks from pcoll's trace where its calls
went. Modes:

  matrix   one launch per "column": column j sets PCOLL_<COLL> to the j-th algorithm of every
           collective (auto, vendor, then pcoll's own, as `pcoll-info --params-markdown` lists
           them: the registry, not a hand-kept list). --columns all runs every column (every
           algorithm of every collective), sample runs auto and one rotating column. Each
           launch: the program checks its results exactly; the trace must hold, on every rank,
           exactly as many calls of each collective as the program says it made (none lost,
           none twice), each served by the configured algorithm (auto: one of pcoll's, or vendor by a rule), and the
           program's calls pcoll cannot serve (one of each collective on an inter-communicator)
           as "vendor (fallback: REASON)".
  tool     the program has its own PMPI counting tool: the tool's counts, the program's and the
           trace's must all agree (every call seen exactly once by each).
  disable  PCOLL_DISABLE=1: the run's checksum equals a run without the preload (the vendor's
           bits) and no trace file is written (no pcoll entry at all).
  mpi4py   a Python program: results checked by it; the trace must show the buffer calls served
           by the algorithms configured here.
  traced   a program calling the collectives pcoll has no algorithm for (gather, scatter, scan,
           the neighbourhood collectives, ... and their nonblocking forms): results checked by
           it; the trace must hold, on every rank, exactly as many calls of each as the program
           made, each "vendor", the nonblocking ones with their "wait" phase.

  preload_test.py --mode M --np P --lib libpcoll_mpi.so --pcoll-info EXE --mpiexec EXE
                  [--launcher openmpi|hydra] [--preload-first LIB] --work DIR
                  [--columns all|sample] -- PROGRAM [ARGS...]

--launcher says how mpiexec gives the ranks (and not itself) an environment variable; without
it, it is told from `mpiexec --version`.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

# The calls plain_mpi.c makes that pcoll must hand to the vendor, by collective: the key of
# their count in the program's counts line (not included in the collective's own count) and
# what the trace's "vendor (fallback: REASON)" must say. Non-contiguous datatypes are no longer
# among them: pcoll packs them (the program's strided and MPI_BOTTOM broadcasts are served).
FALLBACKS = {c: ("inter", "inter-communicators")
             for c in ("allreduce", "bcast", "allgather", "alltoall", "alltoallv", "barrier")}


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def algorithms(pcoll_info):
    """{collective: [auto, vendor, ...]} from the parameter table."""
    out = subprocess.run([pcoll_info, "--params-markdown"], check=True, capture_output=True,
                         text=True).stdout
    algos = {}
    for line in out.splitlines():
        m = re.match(r"\| `PCOLL_([A-Z_]+)` \| `auto` \| (auto\\\|vendor[^ ]*) \|", line)
        if m:
            algos[m.group(1).lower()] = m.group(2).split("\\|")
    if "allreduce" not in algos:
        fail(f"no algorithm rows in `{pcoll_info} --params-markdown`")
    return algos


def launcher_kind(mpiexec):
    """openmpi or hydra, from `mpiexec --version`."""
    r = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    if re.search(r"Open MPI|OpenRTE", out):
        return "openmpi"
    if re.search(r"HYDRA|Intel\(R\) MPI", out):
        return "hydra"
    fail(f"cannot tell which launcher {mpiexec} is (--launcher openmpi|hydra); it said:\n{out}")


def env_flags(launcher, var, value):
    """mpiexec flags that set var=value in the ranks' environment only."""
    return ["-x", f"{var}={value}"] if launcher == "openmpi" else ["-genv", var, value]


def launch(args, env_extra, tag, preload=True):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [args.mpiexec, "-n", str(args.np)]
    if preload and not args.no_preload:
        cmd += env_flags(args.launcher, "LD_PRELOAD", ":".join(args.preload_first + [args.lib]))
    cmd += args.program
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        fail(f"{tag}: {' '.join(cmd)} exited {r.returncode}\n{out}")
    return out


def counts_of(out, prefix):
    m = re.search(prefix + r":((?: \w+=\d+)+)", out)
    if not m:
        fail(f"no '{prefix}:' line in the output:\n{out}")
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(1))}


def trace_rows(path, P):
    if not os.path.exists(path):
        fail(f"no trace file {path}")
    with h5py.File(path, "r") as f:
        if int(f["run"].attrs["nranks"]) != P:
            fail(f"{path}: nranks {f['run'].attrs['nranks']} != {P}")
        calls = f["calls"][:]
    return calls


def check_matrix_trace(path, P, algos, chosen, counts, tag):
    calls = trace_rows(path, P)
    coll = np.array([c.decode() for c in calls["collective"]])
    algo = np.array([a.decode() for a in calls["algorithm"]])
    for c, n in counts.items():
        if c not in algos:
            continue
        want = chosen[c]
        ours = [a for a in algos[c] if a not in ("auto", "vendor")]
        key, why = FALLBACKS.get(c, (None, None))
        extra = counts.get(key, 0)
        for r in range(P):
            got = algo[(calls["rank"] == r) & (coll == c)]
            if len(got) != n + extra:
                fail(f"{tag}: rank {r} has {len(got)} {c} calls in the trace, the program made "
                     f"{n + extra}")
            fb = [a for a in got if a.startswith("vendor (fallback:")]
            served = [algorithm_of(a) for a in got if not a.startswith("vendor (fallback:")]
            # A configured `vendor` is no fallback: those calls are plain "vendor" rows.
            if want != "vendor" and (len(fb) != extra or not all(why in a for a in fb)):
                fail(f"{tag}: rank {r}: expected {extra} 'vendor (fallback: ...{why}...)' {c} "
                     f"rows, found {fb}")
            # auto: one of pcoll's, or plain vendor where a rule of PCOLL_RULES names it (a
            # measured choice, not a fallback: those rows would say "vendor (fallback: ...)").
            bad = [a for a in served
                   if (a not in ours + ["vendor"] if want == "auto" else a != want)]
            if bad:
                fail(f"{tag}: rank {r}: {c} configured '{want}' but served by {sorted(set(bad))}")


def mode_matrix(args, algos):
    ncol = max(len(v) for v in algos.values())
    cols = list(range(ncol)) if args.columns == "all" else [0, 2 + args.np % (ncol - 2)]
    for j in cols:
        chosen = {c: v[j % len(v)] for c, v in algos.items()}
        trace = os.path.join(args.work, f"col{j}.h5")
        env = {f"PCOLL_{c.upper()}": a for c, a in chosen.items()}
        env["PCOLL_TRACE"] = trace
        tag = f"P={args.np} " + " ".join(f"{c}={a}" for c, a in chosen.items())
        out = launch(args, env, tag)
        check_matrix_trace(trace, args.np, algos, chosen, counts_of(out, "plain_mpi counts"), tag)
        print(f"ok: {tag}", flush=True)


def mode_tool(args, algos):
    trace = os.path.join(args.work, "tool.h5")
    out = launch(args, {"PCOLL_TRACE": trace}, "tool")
    prog, tool = counts_of(out, "plain_mpi counts"), counts_of(out, "counting tool")
    for c, n in tool.items():
        want = prog[c] + prog.get(FALLBACKS.get(c, ("-",))[0], 0)
        if n != want:
            fail(f"the counting tool saw {n} {c} calls, the program made {want}")
    check_matrix_trace(trace, args.np, algos, {c: "auto" for c in algos}, prog, "tool")
    print(f"ok: P={args.np}: the tool and pcoll's trace each saw every call once: {tool}")


def mode_disable(args, _algos):
    trace = os.path.join(args.work, "disabled.h5")
    vendor = launch(args, {}, "without the preload", preload=False)
    off = launch(args, {"PCOLL_DISABLE": "1", "PCOLL_TRACE": trace}, "PCOLL_DISABLE=1")
    a, b = (re.search(r"checksum: (\w+)", o) for o in (vendor, off))
    if not a or not b or a.group(1) != b.group(1):
        fail(f"PCOLL_DISABLE=1 did not give the vendor's bits:\n{vendor}\n{off}")
    if os.path.exists(trace) or os.path.exists(trace + ".tmp"):
        fail("PCOLL_DISABLE=1 wrote a pcoll trace")
    print(f"ok: P={args.np}: PCOLL_DISABLE=1 gives the vendor's bits ({a.group(1)}), no trace")


def algorithm_of(label):
    """The algorithm a trace row names: "ring (recursive_doubling: count < P)" is ring running
    recursive doubling's schedule for that call (the registry's delegation), so still ring."""
    return label if label.startswith("vendor (fallback:") else label.split(" (", 1)[0]


def mode_mpi4py(args, algos):
    want = {"allreduce": "rabenseifner", "alltoall": "bruck", "bcast": "binomial"}
    minimum = {"allreduce": 6, "alltoall": 1, "bcast": args.np}
    trace = os.path.join(args.work, "mpi4py.h5")
    env = {f"PCOLL_{c.upper()}": a for c, a in want.items()}
    env["PCOLL_TRACE"] = trace
    launch(args, env, "mpi4py")
    calls = trace_rows(trace, args.np)
    coll = np.array([c.decode() for c in calls["collective"]])
    algo = np.array([a.decode() for a in calls["algorithm"]])
    for c, a in want.items():
        for r in range(args.np):
            got = algo[(calls["rank"] == r) & (coll == c)]
            if len(got) < minimum[c] or {algorithm_of(g) for g in got} != {a}:
                fail(f"rank {r}: {c} rows {sorted(set(got))} x{len(got)}, expected >= "
                     f"{minimum[c]} served by {a}")
    seen = {c: int((coll == c).sum() // args.np) for c in np.unique(coll)}
    print(f"ok: P={args.np}: mpi4py calls served by pcoll (per rank: {seen})")


def mode_traced(args, _algos):
    trace = os.path.join(args.work, "traced.h5")
    out = launch(args, {"PCOLL_TRACE": trace}, "traced")
    counts = counts_of(out, "rest counts")
    with h5py.File(trace, "r") as f:
        calls = f["calls"][:]
        phases = f["phases"][:]
    coll = np.array([c.decode() for c in calls["collective"]])
    for c, n in counts.items():
        for r in range(args.np):
            rows = calls[(calls["rank"] == r) & (coll == c)]
            if len(rows) != n:
                fail(f"rank {r}: {len(rows)} {c} rows in the trace, the program made {n}")
            for row in rows:
                if row["algorithm"].decode() != "vendor":
                    fail(f"rank {r}: {c} traced as {row['algorithm'].decode()}, not vendor")
                names = [p["name"].decode()
                         for p in phases[row["phase_first"]:row["phase_first"] + row["nphases"]]]
                if names != (["wait"] if c.startswith("i") else []):
                    fail(f"rank {r}: {c} has phases {names}")
    print(f"ok: P={args.np}: {len(counts)} collectives passed to the vendor, each traced once per "
          f"call on every rank")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("--mode", "--lib", "--pcoll-info", "--mpiexec", "--work"):
        p.add_argument(opt, required=True)
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--launcher", choices=["openmpi", "hydra"],
                   help="how mpiexec sets a rank's environment (default: from mpiexec --version)")
    p.add_argument("--columns", choices=["all", "sample"], default="sample")
    p.add_argument("--preload-first", action="append", default=[], metavar="LIB",
                   help="preload LIB before the library (the ASan runtime under a sanitizer)")
    p.add_argument("--no-preload", action="store_true",
                   help="the program is linked with libpcoll_mpi.so (no LD_PRELOAD)")
    p.add_argument("program", nargs="+")
    args = p.parse_args()
    if args.launcher is None:
        args.launcher = launcher_kind(args.mpiexec)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    modes = {"matrix": mode_matrix, "tool": mode_tool, "disable": mode_disable,
             "mpi4py": mode_mpi4py, "traced": mode_traced}
    modes[args.mode](args, algorithms(args.pcoll_info))


if __name__ == "__main__":
    main()
