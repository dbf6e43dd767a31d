#!/usr/bin/env python3
"""The model's error against the simulation per schedule family and S (median of model/sim - 1).

    model_error.py OUT    (OUT: auto-candidates/PLATFORM-PPP.tsv and cells/auto-PLATFORM-PPP-*.csv)
"""
import csv, glob, sys, collections, re
out = sys.argv[1]
for plat in ["polaris","fugaku","aurora"]:
    errs = collections.defaultdict(list)
    for P in [64,128,256,512,1024]:
        model = {}
        try:
            for line in open(f"{out}/auto-candidates/{plat}-P{P}.tsv"):
                S, name, t = line.split("\t"); model[(int(S), name)] = float(t)
        except FileNotFoundError: continue
        for f in glob.glob(f"{out}/cells/auto-{plat}-P{P}-*.csv"):
            for r in csv.DictReader(open(f)):
                S = int(r["per_rank_bytes"])//8; name = r["algorithm"]
                if (S,name) in model:
                    fam = name.split(":")[0]
                    if "chiara_lane=" in name: fam += ":" + re.search("chiara_lane=(\w+)", name).group(1)
                    errs[(fam, S)].append(model[(S,name)]/float(r["median_s"]) - 1)
    print(plat)
    fams = sorted(set(k[0] for k in errs))
    for fam in fams:
        print("  %-24s" % fam, " ".join("S=%d:%+4.0f%%(%d)" % (S, 100*sorted(errs[(fam,S)])[len(errs[(fam,S)])//2], len(errs[(fam,S)])) for S in [1,8,64,512,4096] if errs[(fam,S)]))
