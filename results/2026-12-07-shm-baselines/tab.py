import sys, csv, collections
sys.path.insert(0, "/work/main/scripts/lib")
from speedup import speedup_ci, format_speedup
import numpy as np
for f in sys.argv[1:]:
    data = collections.defaultdict(list); order=[]
    for row in csv.DictReader(l for l in open(f) if not l.startswith("#")):
        k=(int(row["bytes"]), row["entry"]); data[k].append(float(row["seconds"]))
        if row["entry"] not in order: order.append(row["entry"])
    print(f"\n{f}\n| bytes | " + " | ".join(f"{e} us" for e in order) + " | " + " | ".join(f"{e}/pmpi" for e in order if e!="pmpi") + " |")
    for b in sorted({k[0] for k in data}):
        p=data[(b,"pmpi")]
        cells=[f"{np.median(data[(b,e)])*1e6:.3f}" for e in order]
        cells+=[format_speedup(speedup_ci(p,data[(b,e)])) for e in order if e!="pmpi"]
        print(f"| {b} | "+" | ".join(cells)+" |")
