picks: chiara; chiara; tree tree_arity=8; 
