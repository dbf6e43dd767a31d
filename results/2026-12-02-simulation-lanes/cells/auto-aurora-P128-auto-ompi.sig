picks: 1=recexch:recexch_radix=16 8=tree:tree_arity=8 64=swing 512=chiara_loglane:chiara_batch=8:chiara_lane=swing 4096=chiara_loglane:chiara_batch=8:chiara_lane=swing 
