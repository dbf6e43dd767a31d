picks: tree tree_arity=8; recexch_rsag; recexch recexch_radix=16; 
