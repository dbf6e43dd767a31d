"""Reading pcoll logs (docs/trace-format.md) with h5py: shared by the plot and summary scripts.

Needs h5py and numpy (Debian: python3-h5py; use /usr/bin/python3, see scripts/lib/common.sh)."""
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # the scripts must fail loudly, never skip
    sys.exit(f"pcoll: {e}; install python3-h5py python3-matplotlib (Debian) and run with "
             f"/usr/bin/python3")


def text(v):
    """Fixed-length strings come back as bytes."""
    return v.decode() if isinstance(v, (bytes, np.bytes_)) else str(v)


def human(b):
    b = int(b)
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20}MiB"
    if b >= 1024 and b % 1024 == 0:
        return f"{b >> 10}KiB"
    return f"{b}B"


class Log:
    def __init__(self, path):
        self.path = path
        self.f = h5py.File(path, "r")
        self.run = {k: (text(v) if isinstance(v, (bytes, np.bytes_)) else v)
                    for k, v in self.f["run"].attrs.items()} if "run" in self.f else {}
        self.bench = self.f.get("collbench")
        self.nranks = int(self.bench.attrs["nranks"]) if self.bench is not None else \
            int(self.run.get("nranks", 0))

    def results(self):
        """collbench's results: list of dicts, one per (algorithm, size)."""
        if self.bench is None:
            return []
        r = self.bench["results"][:]
        out = []
        for row in r:
            d = {n: row[n] for n in r.dtype.names}
            d["algorithm"] = text(d["algorithm"])
            out.append(d)
        return out

    def samples(self):
        """{(algorithm, bytes): array of per-call seconds (max over ranks)}."""
        out = {}
        if self.bench is not None:
            s = self.bench["samples"][:]
            for a in np.unique(s["algorithm"]):
                for b in np.unique(s["bytes"]):
                    sel = (s["algorithm"] == a) & (s["bytes"] == b)
                    if sel.any():
                        out[(text(a), int(b))] = s["seconds"][sel]
            return out
        c = self.f["calls"][:]  # plain trace: per call, max over ranks by comm_seq
        for a in np.unique(c["algorithm"]):
            for b in np.unique(c["bytes"]):
                sel = (c["algorithm"] == a) & (c["bytes"] == b)
                if sel.any():
                    seqs = c["comm_seq"][sel]
                    secs = c["seconds"][sel]
                    out[(text(a), int(b))] = np.array(
                        [secs[seqs == q].max() for q in np.unique(seqs)])
        return out

    def phase_medians(self):
        """{(algorithm, bytes): (median call seconds, {phase: median seconds})} from the trace."""
        if "calls" not in self.f:
            return {}
        c = self.f["calls"][:]
        p = self.f["phases"][:]
        out = {}
        for a in np.unique(c["algorithm"]):
            for b in np.unique(c["bytes"]):
                sel = np.nonzero((c["algorithm"] == a) & (c["bytes"] == b))[0]
                if len(sel) == 0:
                    continue
                per_phase = {}
                pm = np.isin(p["call"], sel)
                for name in np.unique(p["name"][pm]):
                    per_phase[text(name)] = p["seconds"][pm & (p["name"] == name)]
                out[(text(a), int(b))] = (float(np.median(c["seconds"][sel])),
                                          {k: float(np.median(v)) for k, v in per_phase.items()})
        return out


    def call_groups(self):
        """A plain trace's calls by (collective, algorithm, bytes): {key: (array of per-call
        seconds, max over ranks, {phase: median seconds over the rows})}. A call is one
        (communicator, comm_seq): its rows on every rank (comm_root and comm_size name the
        communicator)."""
        if "calls" not in self.f:
            return {}
        c = self.f["calls"][:]
        p = self.f["phases"][:]
        keys = np.array([f"{text(a)}\0{text(b)}\0{int(n)}"
                         for a, b, n in zip(c["collective"], c["algorithm"], c["bytes"])])
        out = {}
        for k in np.unique(keys):
            sel = np.nonzero(keys == k)[0]
            call = np.stack([c["comm_root"][sel], c["comm_size"][sel], c["comm_seq"][sel]], axis=1)
            _, which = np.unique(call, axis=0, return_inverse=True)
            which = np.asarray(which).reshape(-1)
            secs = np.array([c["seconds"][sel][which == q].max() for q in np.unique(which)])
            pm = np.isin(p["call"], sel)
            phases = {text(name): float(np.median(p["seconds"][pm & (p["name"] == name)]))
                      for name in np.unique(p["name"][pm])}
            coll, algo, b = k.split("\0")
            out[(coll, algo, int(b))] = (secs, phases)
        return out


def save(fig, out):
    """Writes out (PNG) and the same name with .svg."""
    fig.savefig(out, dpi=110, bbox_inches="tight")
    if out.endswith(".png"):
        fig.savefig(out[:-4] + ".svg", bbox_inches="tight")
    print(f"wrote {out}", file=sys.stderr)
