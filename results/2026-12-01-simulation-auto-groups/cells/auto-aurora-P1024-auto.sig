picks: 1=tree:tree_arity=4 8=rabenseifner 64=rabenseifner 512=rabenseifner 4096=ring 
