picks: 1=tree:tree_arity=8 8=chiara:chiara_batch=16 64=rabenseifner 512=chiara_loglane 4096=ring 
