picks: chiara chiara_batch=48; chiara; recexch recexch_radix=16; 
