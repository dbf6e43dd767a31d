picks: 1=tree:tree_arity=8 8=chiara 64=chiara 512=chiara_loglane 4096=chiara_loglane 
