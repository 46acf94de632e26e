import json, math, sys
import numpy as np
sys.path.insert(0,'scripts')
import importlib.util
spec=importlib.util.spec_from_file_location('pt','scripts/plot_tuning.py'); pt=importlib.util.module_from_spec(spec); spec.loader.exec_module(pt)
def pred_pl(xs, ys, x): return pt.predict(xs, ys, x)
def pred_local(xs, ys, x, k=4, deg=1):
    idx=sorted(range(len(xs)), key=lambda i: abs(xs[i]-x))[:k]
    X=np.array([xs[i] for i in idx]); Y=np.array([ys[i] for i in idx])
    w=1.0/(np.abs(X-x)+0.3)
    c=np.polyfit(X,Y,deg,w=w)
    return float(np.polyval(c,x))
def pred_global(xs, ys, x, deg=3):
    c=np.polyfit(xs,ys,min(deg,len(xs)-1)); return float(np.polyval(c,x))
def choose(sizes, ms, n, pred):
    ln=[math.log(s) for s in sizes]; x=math.log(n)
    v=[pred(ln,[math.log(m) for m in row],x) for row in ms]
    return int(np.argmin(v))
def loo(t, pred):
    gaps=[]
    S=t['sizes']
    for s,n in enumerate(S):
        if s==0 or s==len(S)-1: continue
        sizes=S[:s]+S[s+1:]; ms=[row[:s]+row[s+1:] for row in t['ms']]
        c=choose(sizes, ms, n, pred)
        truth=[row[s] for row in t['ms']]
        gaps.append(100*(truth[c]/min(truth)-1))
    return np.mean(gaps), max(gaps)
for f in sys.argv[1:]:
    _, tab = pt.load_table(f)
    print(f)
    for name,pred in [('pl',pred_pl),('local4d1',lambda a,b,x:pred_local(a,b,x,4,1)),('local3d1',lambda a,b,x:pred_local(a,b,x,3,1)),('local5d2',lambda a,b,x:pred_local(a,b,x,5,2)),('global3',lambda a,b,x:pred_global(a,b,x,3)),('global2',lambda a,b,x:pred_global(a,b,x,2))]:
        print(' ',name, ' '.join(f"{p}:{m:.1f}/{M:.1f}" for p in pt.PRECISIONS for (m,M) in [loo(tab[p],pred)]))
