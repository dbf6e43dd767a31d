picks: 1=tree:tree_arity=8 8=tree:tree_arity=8 64=chiara_loglane:chiara_batch=8:chiara_lane=halving 512=chiara_loglane 4096=ring 
