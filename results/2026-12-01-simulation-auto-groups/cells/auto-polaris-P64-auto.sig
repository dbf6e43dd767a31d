picks: 1=recursive_doubling 8=chiara_loglane 64=chiara_loglane:chiara_batch=8:chiara_lane=halving 512=chiara_loglane 4096=chiara_loglane 
