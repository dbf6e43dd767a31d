picks: tree tree_arity=8; recexch_rsag recexch_radix=16; recexch recexch_radix=16; 
