picks: 1=tree:tree_arity=8 8=chiara_loglane:chiara_batch=16:chiara_lane=swing 64=chiara_loglane:chiara_batch=16:chiara_lane=swing 512=chiara_loglane:chiara_batch=8:chiara_lane=swing 4096=ring 
