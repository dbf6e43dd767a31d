import sys, csv, glob, collections
sys.path.insert(0, "/work/main/scripts/lib")
from speedup import speedup_ci, format_speedup
import numpy as np
d = sys.argv[1]
data = collections.defaultdict(list)
for f in glob.glob(f"{d}/*.csv"):
    t = f.split("/")[-1].rsplit("-",1)[0]
    for row in csv.DictReader(l for l in open(f) if not l.startswith("#")):
        data[(t, int(row["bytes"]), row["entry"])].append(float(row["seconds"]))
sizes = sorted({k[1] for k in data})
trees = ["ab43a03","9e4b35e","main"]
print("| bytes | " + " | ".join(f"{t} pmpi us | {t} shm us | {t} shm/pmpi" for t in trees) + " |")
for b in sizes:
    cells=[]
    for t in trees:
        p=data[(t,b,"pmpi")]; s=data[(t,b,"shm")]
        if not p or not s: cells += ["-","-","-"]; continue
        sp=speedup_ci(p,s)
        cells += [f"{np.median(p)*1e6:.3f}", f"{np.median(s)*1e6:.3f}", format_speedup(sp)]
    print(f"| {b} | " + " | ".join(cells) + " |")
# direct tree-vs-tree for shm
print()
for b in sizes:
    a=data[("ab43a03",b,"shm")]; m=data[("main",b,"shm")]; n=data[("9e4b35e",b,"shm")]
    if a and m: print(b, "main vs ab43a03 shm:", format_speedup(speedup_ci(a,m)), " 9e4b35e vs ab43a03:", format_speedup(speedup_ci(a,n)) if n else "-")
