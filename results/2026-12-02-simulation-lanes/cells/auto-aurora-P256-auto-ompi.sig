picks: 1=tree:tree_arity=8 8=tree:tree_arity=8 64=swing 512=swing 4096=chiara_loglane:chiara_batch=8:chiara_lane=swing 
