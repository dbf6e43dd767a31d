picks: 1=recexch:recexch_radix=16 8=tree:tree_arity=8 64=tree:tree_arity=8 512=chiara_loglane 4096=chiara_loglane 
