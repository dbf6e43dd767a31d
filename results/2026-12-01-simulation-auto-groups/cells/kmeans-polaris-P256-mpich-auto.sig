picks: tree tree_arity=8; chiara_loglane; tree tree_arity=8; 
