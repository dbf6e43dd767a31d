picks: 1=tree:tree_arity=8 8=rabenseifner 64=chiara_loglane 512=chiara_loglane 4096=ring 
