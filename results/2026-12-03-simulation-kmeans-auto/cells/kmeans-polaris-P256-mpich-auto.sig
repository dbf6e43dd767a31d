picks: tree tree_arity=8; chiara_loglane; recexch recexch_radix=16; 
