picks: chiara chiara_batch=48; chiara_loglane; tree tree_arity=8; 
