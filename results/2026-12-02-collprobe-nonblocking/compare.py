import csv, sys, statistics as st, random
def load(path):
    rows=[l for l in open(path) if not l.startswith('#')]
    r=csv.DictReader(rows)
    d={}
    for x in r:
        d.setdefault((x['entry'],int(x['bytes'])),[]).append(float(x['seconds'])*1e6)
    return d
def boot(a,b,n=2000):
    random.seed(1); out=[]
    for _ in range(n):
        out.append(st.median(random.choices(a,k=len(a)))/st.median(random.choices(b,k=len(b))))
    out.sort(); return out[int(.025*n)], out[int(.975*n)]
for P in (2,4):
    B=load(f'before/probe_P{P}.csv'); A=load(f'after/probe_P{P}.csv')
    print(f"\n### P = {P}: after / before, median us per call [95% bootstrap of the ratio]\n")
    print("| entry | 8 B | 1 KiB | 64 KiB | 1 MiB |"); print("|---|--:|--:|--:|--:|")
    for e in ['pmpi','vendor','recursive_doubling','ring','rabenseifner','tree','chiara','auto']:
        cells=[]
        for b in (8,1024,65536,1048576):
            if (e,b) not in A or (e,b) not in B: cells.append('-'); continue
            a=A[(e,b)]; bb=B[(e,b)]
            lo,hi=boot(a,bb)
            cells.append(f"{st.median(bb):.2f} -> {st.median(a):.2f} ({st.median(a)/st.median(bb):.2f}x [{lo:.2f}, {hi:.2f}])")
        print(f"| {e} | "+" | ".join(cells)+" |")
print("\n## entry / pmpi in the same launch (median of per-block ratios), before -> after\n")
for P in (2,4):
    B=load(f'before/probe_P{P}.csv'); A=load(f'after/probe_P{P}.csv')
    print(f"\n### P = {P}\n\n| entry | 8 B | 1 KiB | 64 KiB | 1 MiB |\n|---|--:|--:|--:|--:|")
    for e in ['vendor','recursive_doubling','ring','rabenseifner','tree','chiara','auto']:
        cells=[]
        for b in (8,1024,65536,1048576):
            r=lambda D: st.median([x/y for x,y in zip(D[(e,b)],D[('pmpi',b)])])
            cells.append(f"{r(B):.2f} -> {r(A):.2f}")
        print(f"| {e} | "+" | ".join(cells)+" |")
