picks: chiara; chiara; recexch recexch_radix=16; 
