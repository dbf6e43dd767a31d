picks: tree tree_arity=8; chiara; tree tree_arity=8; 
