picks: 1=tree:tree_arity=8 8=tree:tree_arity=8 64=rabenseifner 512=rabenseifner 4096=ring 
